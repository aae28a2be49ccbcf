/**
 * The `usage` member of an answer's bytes, found without parsing the answer: OpenAI-shaped
 * answers (JSON, and the usage chunk of a stream) carry the request's token counts there.
 */
export const USAGE_KEY = Buffer.from('"usage"');

const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;

function isSpace(b: number | undefined): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/**
 * Where the object value of the `"usage"` key found at `keyAt` opens (its `{`, with JSON
 * whitespace and the colon between), or -1 when the value is not an object (`null`, or the
 * bytes are a string that reads "usage" rather than a key).
 */
export function usageObjectAfter(buf: Buffer, keyAt: number): number {
  let i = keyAt + USAGE_KEY.length;
  while (isSpace(buf[i])) i++;
  if (buf[i] !== COLON) return -1;
  i++;
  while (isSpace(buf[i])) i++;
  return buf[i] === OPEN_OBJECT ? i : -1;
}

/**
 * The place of the last `"usage"` key whose value is an object (-1: none). One backward search
 * at a time: a stream that asked for usage carries `"usage":null` in every chunk, and its usage
 * chunk is the last before [DONE], so the first key found from the end is usually the one.
 */
export function lastUsageObject(buf: Buffer): number {
  let at = buf.lastIndexOf(USAGE_KEY);
  while (at >= 0) {
    if (usageObjectAfter(buf, at) >= 0) return at;
    at = at > 0 ? buf.lastIndexOf(USAGE_KEY, at - 1) : -1;
  }
  return -1;
}
