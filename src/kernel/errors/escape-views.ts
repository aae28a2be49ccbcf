/**
 * The spellings a text may carry a secret in, undone: the text itself, then the text with one
 * layer of JSON string escapes decoded (`\"`, `\\`, `\/`, `\n`..., `\uXXXX` in either hex case,
 * surrogate pairs), again and again, and with one layer of URL encoding decoded (`%XX` as UTF-8,
 * `+` as a space) between any two of those. A secret is then searched as it is in each view, so
 * mixed spellings (some characters \u-escaped, some not) need no generated variants.
 *
 * Every offset of a view maps back to the original text (View.origin), so a match in any view
 * masks exactly the original characters that spelled it.
 *
 * Bound: the gateway wraps what it relays in at most two JSON strings (an upstream body in
 * `error.debug.upstream_body`, that answer or a tool result quoted in a log line), over what an
 * upstream or tool server nests itself (a JSON error body quoting another service's JSON body:
 * two or three levels; the issue's case was three). MAX_JSON_DEPTH (8) covers 2 + 6; decoding
 * stops earlier as soon as a view has no escape left, which for ordinary text is after one or
 * two. URL encoding is decoded once per chain: the gateway writes a value URL-encoded once (a
 * query value of a configured URL), and that URL may then sit at any JSON depth.
 */

/**
 * One decoding of a text. Only the decoded escapes are recorded (where each sits in the view
 * and what it spelled in the view it came from), so a view costs a few native slices, and an
 * offset is mapped back to the original text only for a match.
 */
export class View {
  constructor(
    readonly text: string,
    private readonly parent?: View,
    /** Per decoded escape: its offset and length here, its offset and length in the parent. */
    private readonly marks: readonly number[] = [],
  ) {}

  /** The offset in the original text that offset `p` of this view stands for. */
  origin(p: number): number {
    const m = this.marks;
    let q = p;
    if (m.length) {
      // The last escape starting before p.
      let lo = 0;
      let hi = m.length / 4 - 1;
      let k = -1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (m[mid * 4]! < p) {
          k = mid;
          lo = mid + 1;
        } else hi = mid - 1;
      }
      if (k >= 0) {
        const end = m[k * 4]! + m[k * 4 + 1]!;
        // Inside an escape that gave two characters (a surrogate pair): its start.
        q = p < end ? m[k * 4 + 2]! : m[k * 4 + 2]! + m[k * 4 + 3]! + (p - end);
      }
    }
    return this.parent ? this.parent.origin(q) : q;
  }
}

export const MAX_JSON_DEPTH = 8;

const SIMPLE_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const JSON_ESCAPE = /\\(?:["\\/bfnrt]|u[0-9A-Fa-f]{4})/g;

/** The view with one layer of JSON string escapes decoded; undefined when it has none. */
export function jsonDecoded(view: View): View | undefined {
  const s = view.text;
  if (s.indexOf('\\') < 0) return undefined;
  const marks: number[] = [];
  let out = '';
  let last = 0;
  JSON_ESCAPE.lastIndex = 0;
  for (let m = JSON_ESCAPE.exec(s); m; m = JSON_ESCAPE.exec(s)) {
    const at = m.index;
    const escape = m[0];
    out += s.slice(last, at);
    marks.push(out.length, 1, at, escape.length);
    out += escape.length === 2 ? SIMPLE_ESCAPES[escape[1]!]! : String.fromCharCode(parseInt(escape.slice(2), 16));
    last = at + escape.length;
  }
  if (!marks.length) return undefined;
  return new View(out + s.slice(last), view, marks);
}

/** The length of a UTF-8 sequence its lead byte announces (0: not a lead byte). */
function utf8Length(b: number): number {
  if (b < 0x80) return 1;
  if (b >= 0xc2 && b <= 0xdf) return 2;
  if (b >= 0xe0 && b <= 0xef) return 3;
  if (b >= 0xf0 && b <= 0xf4) return 4;
  return 0;
}

const PERCENT = /%[0-9A-Fa-f]{2}/g;
const PERCENT_OR_PLUS = /%[0-9A-Fa-f]{2}|\+/g;

/** The code point a UTF-8 sequence spelled as `%XX` from `at` gives, with its length in characters; undefined if invalid. */
function percentChar(s: string, at: number): [number, number] | undefined {
  const b0 = parseInt(s.slice(at + 1, at + 3), 16);
  const len = utf8Length(b0);
  if (!len) return undefined;
  let cp = len === 1 ? b0 : len === 2 ? b0 & 0x1f : len === 3 ? b0 & 0x0f : b0 & 0x07;
  for (let k = 1; k < len; k++) {
    const p = at + 3 * k;
    if (s.charCodeAt(p) !== 37) return undefined;
    const b = parseInt(s.slice(p + 1, p + 3), 16);
    if (!(b >= 0x80 && b <= 0xbf)) return undefined;
    cp = (cp << 6) | (b & 0x3f);
  }
  return cp >= 0xd800 && cp <= 0xdfff ? undefined : [cp, 3 * len];
}

/**
 * The view with one layer of URL encoding decoded (`%XX` as UTF-8, and with `plus` `+` as a
 * space); undefined when it has none.
 */
export function urlDecoded(view: View, plus: boolean): View | undefined {
  const s = view.text;
  if (s.indexOf('%') < 0 && (!plus || s.indexOf('+') < 0)) return undefined;
  const pattern = plus ? PERCENT_OR_PLUS : PERCENT;
  const marks: number[] = [];
  let out = '';
  let last = 0;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(s); m; m = pattern.exec(s)) {
    const at = m.index;
    if (at < last) continue;
    const decoded = m[0] === '+' ? ([32, 1] as [number, number]) : percentChar(s, at);
    if (!decoded) continue;
    out += s.slice(last, at);
    const char = String.fromCodePoint(decoded[0]);
    marks.push(out.length, char.length, at, decoded[1]);
    out += char;
    last = at + decoded[1];
    pattern.lastIndex = last;
  }
  if (!marks.length) return undefined;
  return new View(out + s.slice(last), view, marks);
}

/**
 * Calls `visit` with the text and each decoding of it: JSON escapes decoded up to
 * MAX_JSON_DEPTH times, and URL encoding decoded once at any point of that chain. Views are
 * made one after another and dropped after their visit (memory: one chain of them). `plus`:
 * whether `+` stands for a space (only worth a view when a secret holds a space).
 */
export function forEachView(text: string, plus: boolean, visit: (view: View) => void): void {
  const root = new View(text);
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
