/**
 * Top-level members of a JSON object set in its bytes, without parsing and serializing the rest
 * again: a request whose body changes only in a member or two (a catalogue model's name, a
 * stream's usage option) goes upstream as the caller's bytes with those values replaced in place
 * (or appended), instead of a whole JSON.stringify of a conversation that can weigh megabytes.
 *
 * The bytes must be one JSON object that JSON.parse took (the request's own body, already parsed
 * as `parsed`). The scan walks the top level only: nested values are skipped by their brackets,
 * strings by a native search for their closing quote.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

function isSpace(b: number | undefined): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

function skipSpace(raw: Buffer, at: number): number {
  while (isSpace(raw[at])) at++;
  return at;
}

/** Just past the string whose opening quote is at `at`; -1 if it does not end. */
function stringEnd(raw: Buffer, at: number): number {
  let from = at + 1;
  for (;;) {
    const quote = raw.indexOf(QUOTE, from);
    if (quote < 0) return -1;
    // A quote after an odd run of backslashes is escaped.
    let slashes = 0;
    while (raw[quote - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** Just past the value that starts at `at`; -1 if it does not end. */
function valueEnd(raw: Buffer, at: number): number {
  const first = raw[at];
  if (first === QUOTE) return stringEnd(raw, at);
  if (first === OPEN_OBJECT || first === OPEN_ARRAY) {
    let depth = 0;
    for (let i = at; i < raw.length;) {
      const b = raw[i]!;
      if (b === QUOTE) {
        i = stringEnd(raw, i);
        if (i < 0) return -1;
        continue;
      }
      if (b === OPEN_OBJECT || b === OPEN_ARRAY) depth++;
      else if ((b === CLOSE_OBJECT || b === CLOSE_ARRAY) && --depth === 0) return i + 1;
      i++;
    }
    return -1;
  }
  // A number or a literal: up to what ends a value.
  let i = at;
  while (i < raw.length) {
    const b = raw[i];
    if (b === COMMA || b === CLOSE_OBJECT || b === CLOSE_ARRAY || isSpace(b)) break;
    i++;
  }
  return i > at ? i : -1;
}

/**
 * The bytes of `{ ...parsed, ...members }`: each member's value replaced where the object has it,
 * the others appended at its end; the rest of the bytes as they are. Undefined when that cannot
 * be done in the bytes (the caller then serializes the object): a member's value that JSON has no
 * text for, a member named with escapes in the bytes, a member the object has twice.
 */
export function spliceJsonMembers(raw: Buffer, parsed: Record<string, unknown>, members: Record<string, unknown>): Buffer | undefined {
  const names = Object.keys(members);
  if (names.length === 0) return raw;
  const keys: Buffer[] = [];
  const values: Buffer[] = [];
  for (const name of names) {
    const text = JSON.stringify(members[name]) as string | undefined;
    if (text === undefined) return undefined;
    keys.push(Buffer.from(JSON.stringify(name)));
    values.push(Buffer.from(text));
  }
  const found: Array<[start: number, end: number] | undefined> = new Array(names.length);
  let i = skipSpace(raw, 0);
  if (raw[i] !== OPEN_OBJECT) return undefined;
  i = skipSpace(raw, i + 1);
  /** Just past the last member's value (-1: the object is empty); where new members go. */
  let lastEnd = -1;
  if (raw[i] !== CLOSE_OBJECT) {
    for (;;) {
      if (raw[i] !== QUOTE) return undefined;
      const keyEnd = stringEnd(raw, i);
      if (keyEnd < 0) return undefined;
      let which = -1;
      for (let k = 0; k < keys.length; k++) {
        const key = keys[k]!;
        if (key.length === keyEnd - i && raw.compare(key, 0, key.length, i, keyEnd) === 0) which = k;
      }
      i = skipSpace(raw, keyEnd);
      if (raw[i] !== COLON) return undefined;
      const start = skipSpace(raw, i + 1);
      const end = valueEnd(raw, start);
      if (end < 0) return undefined;
      if (which >= 0) {
        if (found[which]) return undefined;
        found[which] = [start, end];
      }
      lastEnd = end;
      i = skipSpace(raw, end);
      if (raw[i] === COMMA) {
        i = skipSpace(raw, i + 1);
        continue;
      }
      if (raw[i] === CLOSE_OBJECT) break;
      return undefined;
    }
  }
  const closeAt = i;
  // A member the object has but the scan did not find is named with escapes in the bytes.
  for (let k = 0; k < names.length; k++) if (!found[k] && Object.hasOwn(parsed, names[k]!)) return undefined;
  const pieces: Buffer[] = [];
  let from = 0;
  const replaced = found.map((span, k) => ({ span, k })).filter((r) => r.span !== undefined);
  replaced.sort((a, b) => a.span![0] - b.span![0]);
  for (const { span, k } of replaced) {
    pieces.push(raw.subarray(from, span![0]), values[k]!);
    from = span![1];
  }
  const added: Buffer[] = [];
  for (let k = 0; k < names.length; k++) {
    if (found[k]) continue;
    added.push(Buffer.from(added.length || lastEnd >= 0 ? ',' : ''), keys[k]!, Buffer.from(':'), values[k]!);
  }
  if (added.length) {
    const at = lastEnd >= 0 ? lastEnd : closeAt;
    pieces.push(raw.subarray(from, at), ...added);
    from = at;
  }
  pieces.push(raw.subarray(from));
  return Buffer.concat(pieces);
}
