import { randomUUID } from 'node:crypto';

let lastMs = -1;
let lastPrefix = '';

/**
 * A UUIDv7 (RFC 9562): the Unix time in milliseconds in its first 48 bits, then random bits, so
 * ids made one after another sort by time. Rows keyed or indexed by such ids are appended at the
 * end of their B-tree instead of landing on a random page (the usage ledger's inserts). The
 * random part is node's UUIDv4 (its pooled entropy), with the version nibble set to 7.
 */
export function timeOrderedUuid(now = Date.now()): string {
  if (now !== lastMs) {
    lastMs = now;
    const hex = now.toString(16).padStart(12, '0');
    lastPrefix = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7`;
  }
  // randomUUID: xxxxxxxx-xxxx-4xxx-Nxxx-xxxxxxxxxxxx; its variant bits (N) stay as they are.
  return lastPrefix + randomUUID().slice(15);
}
