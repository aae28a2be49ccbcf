/**
 * A typed place for one piece of per-request data on the context (`ctx.get(TARGET)`,
 * `ctx.set(TARGET, t)`). Each slot is a numeric index into an array the context holds: no string
 * keys, no maps on the request path. Stages declare the slots they require and provide, and the
 * pipeline compiler checks the order of every pipeline against those declarations.
 */
export interface Slot<T> {
  /** Short name, e.g. "target". */
  readonly name: string;
  /** How compile problems name it, e.g. "a target" ("stage retry needs a target, ..."). */
  readonly label: string;
  readonly index: number;
  /**
   * Set by the edge, not by a stage: there for every stage that asks (the request body, read on
   * first use; the request span). The compiler counts it as provided before the first stage.
   */
  readonly edge?: boolean;
  /** Type carrier only; never set. */
  readonly __type?: T;
}

let nextIndex = 0;
const byName = new Map<string, Slot<unknown>>();

/**
 * Defines a slot. Define each once, at module level, beside the code that provides it. The
 * same name defined twice is a programming error (two features would share one place).
 */
export function defineSlot<T>(name: string, label = `a ${name}`, options: { edge?: boolean } = {}): Slot<T> {
  if (typeof name !== 'string' || !/^[a-z][a-z0-9-]*$/.test(name)) throw new Error(`a context slot name must be lower-case words joined by '-' (got ${JSON.stringify(name)})`);
  if (byName.has(name)) throw new Error(`a context slot named ${name} is already defined`);
  const slot: Slot<T> = Object.freeze({ name, label, index: nextIndex++, ...(options.edge ? { edge: true } : {}) });
  byName.set(name, slot as Slot<unknown>);
  return slot;
}

/** How many slots exist (the size of a context's slot array). */
export function slotCount(): number {
  return nextIndex;
}

/** Every slot defined so far (built-in and plugin), in definition order. */
export function definedSlots(): Slot<unknown>[] {
  return [...byName.values()];
}
