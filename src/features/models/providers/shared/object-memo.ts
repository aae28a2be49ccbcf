/**
 * A value made once per object (a request's context, a provider call) and kept on the object
 * itself under a symbol of this memo's own: not enumerable, so a copy of the object (spread,
 * Object.assign) does not carry it. Cheaper than a WeakMap entry per object, which costs a hash
 * table insert and which the garbage collector visits as an ephemeron while the object lives
 * (measured: a WeakMap entry per provider call kept calls alive through young collections).
 */
export function objectMemo<O extends object, T>(make: (object: O) => T): (object: O) => T {
  const key = Symbol('memo');
  return (object) => {
    const slot = object as unknown as Record<symbol, T | undefined>;
    const held = slot[key];
    if (held !== undefined) return held;
    const value = make(object);
    // An object that cannot take the property (frozen) gets its value made each time.
    if (Object.isExtensible(object)) Object.defineProperty(object, key, { value });
    return value;
  };
}
