/** Bytes split at `points` (ascending, each within 0..length): the pieces between them, empty ones included. */
export function splitAt(bytes: Buffer, points: readonly number[]): Buffer[] {
  const out: Buffer[] = [];
  let from = 0;
  for (const p of points) {
    out.push(bytes.subarray(from, p));
    from = p;
  }
  out.push(bytes.subarray(from));
  return out;
}
