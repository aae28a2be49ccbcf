import type { ProviderCall } from '../provider.js';

/**
 * A value made once per provider call (the chat call a translation makes of it), kept on the
 * call itself under a symbol of this memo's own: not enumerable, so a copy of the call (spread,
 * Object.assign) does not carry it. Cheaper than a WeakMap entry per call, which costs a hash
 * table insert and which the garbage collector visits as an ephemeron while the call lives.
 */
export function callMemo<T extends object>(make: (call: ProviderCall) => T): (call: ProviderCall) => T {
  const key = Symbol('call memo');
  return (call) => {
    const slot = call as unknown as Record<symbol, T | undefined>;
    const held = slot[key];
    if (held !== undefined) return held;
    const value = make(call);
    // A call that cannot take the property (frozen) gets its value made each time.
    if (Object.isExtensible(call)) Object.defineProperty(call, key, { value });
    return value;
  };
}
