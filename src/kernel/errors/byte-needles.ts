/**
 * Byte strings searched for in answer chunks (the runs of secrets, escape markers). A short
 * chunk is searched as its latin1 text: one copy, then V8's string search, cheaper under about
 * 1 KB than a native Buffer search per needle; each byte is one latin1 character, so a needle's
 * bytes are in the chunk exactly where its latin1 text is in the chunk's. Longer chunks are
 * searched as bytes.
 */

/** Chunks up to this size are searched as latin1 text. */
const LATIN1_MAX = 1024;

export interface ByteNeedle {
  readonly bytes: Buffer;
  /** The latin1 text of `bytes`. */
  readonly latin1: string;
}

/** The needle of a text's UTF-8 bytes. */
export function byteNeedle(text: string): ByteNeedle {
  const bytes = Buffer.from(text, 'utf8');
  return { bytes, latin1: bytes.toString('latin1') };
}

/** The latin1 text a chunk is searched as (see holds); undefined for a long chunk. */
export function searchText(buf: Buffer): string | undefined {
  return buf.length <= LATIN1_MAX ? buf.toString('latin1') : undefined;
}

/** Whether the chunk holds the needle's bytes (`latin1`: the chunk's searchText). */
export function holds(buf: Buffer, latin1: string | undefined, needle: ByteNeedle): boolean {
  return latin1 === undefined ? buf.includes(needle.bytes) : latin1.includes(needle.latin1);
}

/** Whether the chunk holds any of the needles. */
export function holdsAny(buf: Buffer, latin1: string | undefined, needles: readonly ByteNeedle[]): boolean {
  for (const needle of needles) if (holds(buf, latin1, needle)) return true;
  return false;
}
