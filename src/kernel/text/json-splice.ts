/**
 * Top-level members of a JSON object set in its bytes, without parsing and serializing the rest
 * again: a request whose body changes only in a member or two (a catalogue model's name, a
 * stream's usage option) goes upstream as the caller's bytes with those values replaced in place
 * (or appended), instead of a whole JSON.stringify of a conversation that can weigh megabytes.
 *
 * The bytes must be one JSON object that JSON.parse took (the request's own body, already
 * parsed). The scan walks the top level only: nested values are skipped by their brackets,
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

/** Bytes of a string looked at one by one before a native search takes over (a call costs more than a short string). */
const SHORT_STRING = 32;

/** Just past the string whose opening quote is at `at`; -1 if it does not end. */
function stringEnd(raw: Buffer, at: number): number {
  const short = Math.min(raw.length, at + SHORT_STRING);
  let i = at + 1;
  for (; i < short; i++) {
    const b = raw[i];
    if (b === QUOTE) return i + 1;
    if (b === BACKSLASH) i++;
  }
  let from = i;
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

/** Whether the bytes from `at` to `end` are `key`'s. */
function sameBytes(raw: Buffer, at: number, end: number, key: Buffer): boolean {
  if (end - at !== key.length) return false;
  for (let j = 0; j < key.length; j++) if (raw[at + j] !== key[j]) return false;
  return true;
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

const UNICODE_ESCAPE = Buffer.from('\\u');
/** Bytes left after the last member found, past which two native searches cost less than walking them (measured: 274 bytes walked faster). */
const LONG_REST = 1024;
/** Whether a name holds a character a JSON string may also write as a short escape (\" \\ \/ \b \f \n \r \t). */
function shortEscapable(name: string): boolean {
  for (let j = 0; j < name.length; j++) {
    const c = name.charCodeAt(j);
    if (c < 0x20 || c === QUOTE || c === BACKSLASH || c === 0x2f) return true;
  }
  return false;
}

/** Whether none of `keys`, and no \u escape, occurs in the bytes from `at` on. */
function noneAfter(raw: Buffer, at: number, keys: readonly Buffer[]): boolean {
  if (raw.indexOf(UNICODE_ESCAPE, at) >= 0) return false;
  for (const key of keys) if (raw.indexOf(key, at) >= 0) return false;
  return true;
}

/** Whether the bytes from `from` to `to` (a key: short) hold a backslash. */
function hasBackslash(raw: Buffer, from: number, to: number): boolean {
  for (let j = from; j < to; j++) if (raw[j] === BACKSLASH) return true;
  return false;
}

/** The bytes of member names as JSON strings (names come from configs: few, and met again and again). */
const keyBytes = new Map<string, Buffer>();

function keyOf(name: string): Buffer {
  let key = keyBytes.get(name);
  if (!key) {
    if (keyBytes.size >= 256) keyBytes.clear();
    key = Buffer.from(JSON.stringify(name));
    keyBytes.set(name, key);
  }
  return key;
}

/**
 * The bytes of `{ ...JSON.parse(raw), ...members }`: each member's value replaced where the object has it,
 * the others appended at its end; the rest of the bytes as they are. Undefined when that cannot
 * be done in the bytes (the caller then serializes the object): a member's value that JSON has no
 * text for, a member named with escapes in the bytes, a member the object has twice.
 */
export function spliceJsonMembers(raw: Buffer, members: Record<string, unknown>): Buffer | undefined {
  const names = Object.keys(members);
  const count = names.length;
  if (count === 0) return raw;
  const keys: Buffer[] = new Array(count);
  const texts: string[] = new Array(count);
  for (let k = 0; k < count; k++) {
    const text = JSON.stringify(members[names[k]!]) as string | undefined;
    if (text === undefined) return undefined;
    keys[k] = keyOf(names[k]!);
    texts[k] = text;
  }
  /** Where each member's value is in the bytes: start and end, or -1 where the object lacks it. */
  const starts = new Array<number>(count).fill(-1);
  const ends = new Array<number>(count).fill(-1);
  let i = skipSpace(raw, 0);
  if (raw[i] !== OPEN_OBJECT) return undefined;
  i = skipSpace(raw, i + 1);
  /** Just past the last member's value (-1: the object is empty); where new members go. */
  let lastEnd = -1;
  /** Members not found yet: at 0 the rest of the object is left unscanned when its bytes name none of them again. */
  let missing = count;
  if (raw[i] !== CLOSE_OBJECT) {
    for (;;) {
      if (raw[i] !== QUOTE) return undefined;
      const keyEnd = stringEnd(raw, i);
      if (keyEnd < 0) return undefined;
      let which = -1;
      for (let k = 0; k < count; k++) {
        if (sameBytes(raw, i, keyEnd, keys[k]!)) which = k;
      }
      // A member's name written with escapes: JSON.parse took it as that member (the last one wins), the bytes cannot take the change.
      if (which < 0 && hasBackslash(raw, i, keyEnd) && Object.hasOwn(members, JSON.parse(raw.toString('utf8', i, keyEnd)) as string)) return undefined;
      i = skipSpace(raw, keyEnd);
      if (raw[i] !== COLON) return undefined;
      const start = skipSpace(raw, i + 1);
      const end = valueEnd(raw, start);
      if (end < 0) return undefined;
      if (which >= 0) {
        if (starts[which]! >= 0) return undefined;
        starts[which] = start;
        ends[which] = end;
        // Every member found (a catalogue model's name usually comes first): the rest need not be
        // walked when a native search finds none of their names in it (not even nested or as a
        // value) and no \u escape: the only other way to write a name with no character that has
        // a short escape. A short rest is walked: that costs less than the searches.
        if (--missing === 0 && raw.length - end > LONG_REST && !names.some(shortEscapable) && noneAfter(raw, end, keys)) break;
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
  let size = raw.length;
  let added = 0;
  for (let k = 0; k < count; k++) {
    const bytes = Buffer.byteLength(texts[k]!);
    // A member the scan did not find is not in the object (one named with escapes was given up on above).
    if (starts[k]! >= 0) size += bytes - (ends[k]! - starts[k]!);
    else size += (added++ > 0 || lastEnd >= 0 ? 1 : 0) + keys[k]!.length + 1 + bytes;
  }
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  let from = 0;
  // The replaced values in the order they are in the bytes.
  for (;;) {
    let next = -1;
    for (let k = 0; k < count; k++) if (starts[k]! >= from && (next < 0 || starts[k]! < starts[next]!)) next = k;
    if (next < 0) break;
    at += raw.copy(out, at, from, starts[next]);
    at += out.write(texts[next]!, at);
    from = ends[next]!;
  }
  if (added > 0) {
    const insertAt = lastEnd >= 0 ? lastEnd : closeAt;
    at += raw.copy(out, at, from, insertAt);
    let first = lastEnd < 0;
    for (let k = 0; k < count; k++) {
      if (starts[k]! >= 0) continue;
      if (!first) out[at++] = COMMA;
      first = false;
      at += keys[k]!.copy(out, at);
      out[at++] = COLON;
      at += out.write(texts[k]!, at);
    }
    from = insertAt;
  }
  raw.copy(out, at, from);
  return out;
}
