/**
 * The spellings a text may carry a secret in, undone: the text itself, then the text with one
 * layer of JSON string escapes decoded (`\"`, `\\`, `\/`, `\n`..., `\uXXXX` in either hex case,
 * surrogate pairs), again and again, and with one layer of URL encoding decoded (`%XX` as UTF-8,
 * `+` as a space) between any two of those. A secret is then searched as it is in each view, so
 * mixed spellings (some characters \u-escaped, some not) need no generated variants.
 *
 * Every character of a view knows where its spelling starts in the original text (`from`, with
 * one more entry for the end), so a match in any view masks exactly the original characters.
 *
 * Bound: the gateway wraps what it relays in at most two JSON strings (an upstream body in
 * `error.debug.upstream_body`, that answer or a tool result quoted in a log line), over what an
 * upstream or tool server nests itself (a JSON error body quoting another service's JSON body:
 * two or three levels; the issue's case was three). MAX_JSON_DEPTH (8) covers 2 + 6; decoding
 * stops earlier as soon as a view has no escape left, which for ordinary text is after one or
 * two. URL encoding is decoded once per chain: the gateway writes a value URL-encoded once (a
 * query value of a configured URL), and that URL may then sit at any JSON depth.
 */

/** One decoding of a text: its characters, and where each one's spelling starts in the original. */
export interface View {
  text: string;
  /** from[i]: the original offset of character i's spelling; from[text.length]: the end. Absent: the original itself. */
  from: Int32Array | undefined;
}

export const MAX_JSON_DEPTH = 8;

function hex(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 32;
  return l >= 97 && l <= 102 ? l - 87 : -1;
}

function hex4(s: string, at: number): number {
  if (at + 4 > s.length) return -1;
  const a = hex(s.charCodeAt(at));
  const b = hex(s.charCodeAt(at + 1));
  const c = hex(s.charCodeAt(at + 2));
  const d = hex(s.charCodeAt(at + 3));
  return a < 0 || b < 0 || c < 0 || d < 0 ? -1 : (a << 12) | (b << 8) | (c << 4) | d;
}

function hex2(s: string, at: number): number {
  if (at + 2 > s.length) return -1;
  const a = hex(s.charCodeAt(at));
  const b = hex(s.charCodeAt(at + 1));
  return a < 0 || b < 0 ? -1 : (a << 4) | b;
}

const SIMPLE_ESCAPES: Record<number, number> = { 34: 34, 92: 92, 47: 47, 98: 8, 102: 12, 110: 10, 114: 13, 116: 9 };

/** Collects a view's characters (code units) and their origins. */
class ViewBuilder {
  readonly codes: Uint16Array;
  readonly from: Int32Array;
  length = 0;

  constructor(
    size: number,
    private readonly parent: View,
  ) {
    this.codes = new Uint16Array(size);
    this.from = new Int32Array(size + 1);
  }

  /** Adds one code unit whose spelling starts at `at` in the parent view. */
  push(code: number, at: number): void {
    this.codes[this.length] = code;
    this.from[this.length++] = this.parent.from ? this.parent.from[at]! : at;
  }

  done(): View {
    const n = this.parent.text.length;
    this.from[this.length] = this.parent.from ? this.parent.from[n]! : n;
    return { text: Buffer.from(this.codes.buffer, 0, this.length * 2).toString('utf16le'), from: this.from.subarray(0, this.length + 1) };
  }
}

/** The view with one layer of JSON string escapes decoded; undefined when it has none. */
export function jsonDecoded(view: View): View | undefined {
  const s = view.text;
  const first = s.indexOf('\\');
  if (first < 0) return undefined;
  const out = new ViewBuilder(s.length, view);
  let changed = false;
  for (let i = 0; i < first; i++) out.push(s.charCodeAt(i), i);
  let pos = first;
  while (pos < s.length) {
    const c = s.charCodeAt(pos);
    if (c === 92 && pos + 1 < s.length) {
      const e = s.charCodeAt(pos + 1);
      const simple = SIMPLE_ESCAPES[e];
      if (simple !== undefined) {
        out.push(simple, pos);
        pos += 2;
        changed = true;
        continue;
      }
      if (e === 117) {
        const code = hex4(s, pos + 2);
        if (code >= 0) {
          out.push(code, pos);
          pos += 6;
          changed = true;
          continue;
        }
      }
    }
    out.push(c, pos);
    pos++;
  }
  return changed ? out.done() : undefined;
}

/** The length of a UTF-8 sequence its lead byte announces (0: not a lead byte). */
function utf8Length(b: number): number {
  if (b < 0x80) return 1;
  if (b >= 0xc2 && b <= 0xdf) return 2;
  if (b >= 0xe0 && b <= 0xef) return 3;
  if (b >= 0xf0 && b <= 0xf4) return 4;
  return 0;
}

/**
 * The view with one layer of URL encoding decoded (`%XX` as UTF-8, and with `plus` `+` as a
 * space); undefined when it has none.
 */
export function urlDecoded(view: View, plus: boolean): View | undefined {
  const s = view.text;
  if (s.indexOf('%') < 0 && (!plus || s.indexOf('+') < 0)) return undefined;
  const out = new ViewBuilder(s.length, view);
  let changed = false;
  let pos = 0;
  while (pos < s.length) {
    const c = s.charCodeAt(pos);
    if (c === 43 && plus) {
      out.push(32, pos++);
      changed = true;
      continue;
    }
    if (c === 37) {
      const b0 = hex2(s, pos + 1);
      const len = b0 < 0 ? 0 : utf8Length(b0);
      let cp = len === 1 ? b0 : len === 2 ? b0 & 0x1f : len === 3 ? b0 & 0x0f : b0 & 0x07;
      for (let k = 1; k < len && cp >= 0; k++) {
        const b = s.charCodeAt(pos + 3 * k) === 37 ? hex2(s, pos + 3 * k + 1) : -1;
        cp = b >= 0x80 && b <= 0xbf ? (cp << 6) | (b & 0x3f) : -1;
      }
      if (len > 0 && cp >= 0 && !(cp >= 0xd800 && cp <= 0xdfff)) {
        if (cp > 0xffff) {
          out.push(0xd800 + ((cp - 0x10000) >> 10), pos);
          // The low surrogate shares the spelling's start: a match never begins between the two.
          out.push(0xdc00 + ((cp - 0x10000) & 0x3ff), pos);
        } else out.push(cp, pos);
        pos += 3 * len;
        changed = true;
        continue;
      }
    }
    out.push(c, pos++);
  }
  return changed ? out.done() : undefined;
}

/**
 * Calls `visit` with the text and each decoding of it: JSON escapes decoded up to
 * MAX_JSON_DEPTH times, and URL encoding decoded once at any point of that chain. Views are
 * made one after another and dropped after their visit (memory: one chain of them). `plus`:
 * whether `+` stands for a space (only worth a view when a secret holds a space).
 */
export function forEachView(text: string, plus: boolean, visit: (view: View) => void): void {
  const root: View = { text, from: undefined };
  visit(root);
  let view: View | undefined = root;
  for (let depth = 0; view; depth++) {
    const url = urlDecoded(view, plus);
    if (url) {
      visit(url);
      let inner: View | undefined = url;
      for (let d = depth; d < MAX_JSON_DEPTH && (inner = jsonDecoded(inner)); d++) visit(inner);
    }
    if (depth >= MAX_JSON_DEPTH) break;
    view = jsonDecoded(view);
    if (view) visit(view);
  }
}
