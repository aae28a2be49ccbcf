/** Most values one kind of label may hold (a config naming more gets the rest as the fallback value). */
const MAX_VALUES = 2_000;
/** Longest value a label may hold. */
const MAX_LENGTH = 200;

/**
 * The label values metrics may show, by kind (`provider`, `model`, `tool:<server>`...): only
 * values the gateway knows (its config, what its extensions register, what its tool servers
 * list), never a caller's free text, so no caller can grow /metrics. Features register values
 * when a config is compiled (a price table or catalogue registers more names the same way);
 * a series takes `pick(kind, value, fallback)`. Bounded per kind.
 */
export class KnownLabels {
  private readonly kinds = new Map<string, Set<string>>();

  /** Registers `values` for `kind` (those over the bounds are left out). */
  add(kind: string, ...values: readonly string[]): void {
    let set = this.kinds.get(kind);
    if (!set) this.kinds.set(kind, (set = new Set()));
    for (const value of values) {
      if (set.size >= MAX_VALUES) return;
      if (value && value.length <= MAX_LENGTH) set.add(value);
    }
  }

  /** Replaces every value of `kind` (a tool server that listed its tools again). */
  replace(kind: string, values: Iterable<string>): void {
    this.kinds.delete(kind);
    this.add(kind, ...values);
  }

  has(kind: string, value: string): boolean {
    return this.kinds.get(kind)?.has(value) === true;
  }

  /** `value` when it is known for `kind`, else `fallback`. */
  pick(kind: string, value: string | undefined, fallback: string): string {
    return value !== undefined && this.kinds.get(kind)?.has(value) === true ? value : fallback;
  }
}
