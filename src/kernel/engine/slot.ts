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
  /** Type carrier only; never set. */
  readonly __type?: T;
}

let nextIndex = 0;
const byName = new Map<string, Slot<unknown>>();

/**
 * Defines a slot. Define each once, at module level, beside the code that provides it. The
 * same name defined twice is a programming error (two features would share one place).
 */
export function defineSlot<T>(name: string, label = `a ${name}`): Slot<T> {
  if (byName.has(name)) throw new Error(`a context slot named ${name} is already defined`);
  const slot: Slot<T> = Object.freeze({ name, label, index: nextIndex++ });
  byName.set(name, slot as Slot<unknown>);
  return slot;
}

/** How many slots exist (the size of a context's slot array). */
export function slotCount(): number {
  return nextIndex;
}
