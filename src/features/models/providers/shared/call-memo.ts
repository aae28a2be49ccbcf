import { objectMemo } from './object-memo.js';
import type { ProviderCall } from '../provider.js';

/** A value made once per provider call (the chat call a translation makes of it), kept on the call itself (see objectMemo). */
export function callMemo<T extends object>(make: (call: ProviderCall) => T): (call: ProviderCall) => T {
  return objectMemo(make);
}
