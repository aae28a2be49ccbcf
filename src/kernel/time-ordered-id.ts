import { randomFillSync } from 'node:crypto';

/** Random bytes per id (74 bits are used), drawn for 128 ids at once: one system call per 128 ids, as node does for randomUUID. */
const RANDOM_BYTES = 10;
const pool = Buffer.alloc(RANDOM_BYTES * 128);
let poolAt = pool.length;

const HEX = Buffer.from('0123456789abcdef', 'latin1');
/** The id's text, written in place: the time part when the millisecond changes, the random digits for each id. */
const text = Buffer.from('00000000-0000-7000-8000-000000000000', 'latin1');
/** Where the 18 random hex digits go (after the version digit 7; the variant digit at 19 is set apart). */
const RANDOM_AT = [15, 16, 17, 20, 21, 22, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35];
const VARIANT_AT = 19;

let lastMs = -1;

/**
 * A UUIDv7 (RFC 9562): the Unix time in milliseconds in its first 48 bits, then random bits, so
 * ids made one after another sort by time. Rows keyed or indexed by such ids are appended at the
 * end of their B-tree instead of landing on a random page (the usage ledger's inserts). The 74
 * random bits come from a pool of cryptographically random bytes; the text is written as bytes
 * and read out as one flat string (building it by concatenation made some twenty string pieces
 * per id).
 */
export function timeOrderedUuid(now = Date.now()): string {
  if (now !== lastMs) {
    lastMs = now;
    const hex = now.toString(16).padStart(12, '0');
    text.write(hex.slice(0, 8), 0, 'latin1');
    text.write(hex.slice(8, 12), 9, 'latin1');
  }
  if (poolAt + RANDOM_BYTES > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  for (let i = 0; i < 9; i++) {
    const byte = pool[poolAt + i]!;
    text[RANDOM_AT[2 * i]!] = HEX[byte >> 4]!;
    text[RANDOM_AT[2 * i + 1]!] = HEX[byte & 15]!;
  }
  // The RFC variant: binary 10, then two random bits (8, 9, a or b).
  text[VARIANT_AT] = HEX[8 | (pool[poolAt + 9]! & 3)]!;
  poolAt += RANDOM_BYTES;
  return text.toString('latin1', 0, 36);
}
