/**
 * The one redactor: every secret the gateway holds (registered once from the config) or is
 * handed with a request (the caller's keys, kept in ctx.secrets) is masked as [REDACTED]
 * wherever it would leave the process: answers, error messages and debug fields, JSON-RPC
 * errors and tool results relayed from tool servers, and every log line.
 *
 * A secret is matched in every spelling the gateway and the services around it produce: the
 * text is read as it is and decoded (escape-views.ts): JSON string escapes up to 8 levels deep,
 * `\uXXXX` escapes of any or all characters in either hex case, and URL encoding once at any
 * point of that chain; a match in any view masks the characters that spelled it. A value given
 * as `<scheme> <credential>` (an Authorization header) also stands for its bare credential, and
 * a Basic credential for its decoded `user:password` and password.
 *
 * What counts as a secret is decided in one place (maskable): a value of MIN_SECRET_LENGTH (8)
 * characters or more that is not a bare literal or number; an Authorization value counts when
 * its credential does, never for its scheme word. Shorter values (placeholder keys such as
 * `ollama`, `EMPTY` or `chat` that self-hosted backends accept) are masked nowhere: masking them
 * would corrupt good answers wherever the word appears.
 *
 * Speed: the gateway's own secrets are compiled into one pattern (and one pattern of their
 * runs) when they are registered; a request's few secrets are prepared once per value and
 * searched with native substring search. A text is decoded only when it holds the run of a
 * secret (letters and digits no escaping changes) or \u-escapes one of its characters; text
 * without any secret is returned as it is, untouched and uncopied.
 */
import { StringDecoder } from 'node:string_decoder';
import { Transform } from 'node:stream';
import { forEachView } from './escape-views.js';

export const REDACTED = '[REDACTED]';

/**
 * Shorter values are not secrets the redactor masks, anywhere: they cannot be masked without
 * mangling ordinary text (every "chat", "ollama" or "lo" of an answer, a JSON member's name, a
 * model id), and a key that short is a placeholder, not a credential.
 */
export const MIN_SECRET_LENGTH = 8;

/** Values that cannot be secrets in any useful sense, and whose masking would break JSON. */
const NOT_SECRET = /^(true|false|null|yes|no|on|off|-?\d+(\.\d+)?)$/i;

const SECRET_FIELD =
  /^(authorization|proxy-authorization|x-gateway-api-key|x-gateway-token|api[-_]?key|x-api-key|cookie|set-cookie|.*secret.*|.*password.*|.*token$|private_key)$/i;

/** Field names extensions declare as secrets (a provider's credential settings), lower case. */
const DECLARED_SECRET_FIELDS = new Set<string>();

/**
 * Declares field names that hold secrets though they are not named like one (a provider's
 * access key id, a service account key): the redactor, the config's secret scan and the
 * logger mask them as they mask the names above. The kernel names no such field itself.
 */
export function declareSecretFields(names: Iterable<string>): void {
  for (const name of names) DECLARED_SECRET_FIELDS.add(name.toLowerCase());
}

/** Whether an extension declared the field a secret. */
export function isDeclaredSecretField(name: string): boolean {
  return DECLARED_SECRET_FIELDS.size > 0 && DECLARED_SECRET_FIELDS.has(name.toLowerCase());
}

/** Whether a field of that name holds a secret (headers, config keys, body fields). */
export function isSecretField(name: string): boolean {
  return SECRET_FIELD.test(name) || isDeclaredSecretField(name);
}

/** The schemes of an Authorization value (`<scheme> <credential>`). */
const SCHEMES = 'bearer|basic|token|bot|apikey|api-key|key|dpop';
const AUTH_SCHEME = new RegExp(`^(${SCHEMES})\\s+(\\S(?:.*\\S)?)\\s*$`, 'i');
/** A scheme word alone (`Authorization: Bearer ` with no token): never a secret, whatever its length. */
const SCHEME_WORD = new RegExp(`^(${SCHEMES})$`, 'i');

/** A bare value that could be a credential: long enough, not a literal or number, not a scheme word. */
function couldBeSecret(value: string): boolean {
  const trimmed = value.trim();
  return trimmed.length >= MIN_SECRET_LENGTH && !NOT_SECRET.test(trimmed) && !SCHEME_WORD.test(trimmed);
}

/**
 * Whether `value` is a secret the redactor masks: the one place that decides it, for the
 * gateway's secrets and a request's alike (asked once per value, never per answer). A value of
 * the shape `<scheme> <credential>` (an Authorization value) is one when its credential is: an
 * empty or placeholder credential (`Bearer ollama`) makes neither it nor its scheme word a secret.
 */
export function maskable(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const credential = AUTH_SCHEME.exec(value.trim())?.[2];
  return couldBeSecret(credential ?? value);
}

/** The values one secret stands for: itself, and the credential inside an Authorization value. */
export function secretValues(value: string): string[] {
  if (!maskable(value)) return [];
  const out = [value];
  const trimmed = value.trim();
  if (trimmed !== value) out.push(trimmed);
  const m = AUTH_SCHEME.exec(trimmed);
  if (m) {
    const credential = m[2]!;
    out.push(credential);
    if (m[1]!.toLowerCase() === 'basic') {
      const decoded = Buffer.from(credential, 'base64').toString('utf8');
      if (/^[^\s:]*:.+$/.test(decoded) && !decoded.includes('\uFFFD')) {
        out.push(decoded, decoded.slice(decoded.indexOf(':') + 1));
      }
    }
  }
  return out.filter(couldBeSecret);
}

/**
 * Letters, digits and `_.-`: no escaping the gateway meets changes them, but for a `\uXXXX`
 * escape. A text without a secret's longest run cannot carry it unless one of its characters is
 * \u-escaped (see escapedCodes).
 */
const RUN = /[A-Za-z0-9_.-]+/g;

function longestRun(value: string, min: number): string | undefined {
  let best = '';
  for (const m of value.matchAll(RUN)) if (m[0].length > best.length) best = m[0];
  return best.length >= min ? best : undefined;
}

const PERCENT_BACKSLASH = /%5c/i;
const U_HEX = /u([0-9A-Fa-f]{4})/g;

/**
 * The characters the `\uXXXX` escapes of a text stand for, at any depth: every `u` and four hex
 * digits (the escape's backslash may itself be escaped, \u-escaped or URL-encoded); undefined
 * when the text holds no `\u` and no URL-encoded backslash.
 */
function escapedCodes(text: string): Set<number> | undefined {
  if (!text.includes('\\u') && !(text.includes('%') && PERCENT_BACKSLASH.test(text))) return undefined;
  const codes = new Set<number>();
  U_HEX.lastIndex = 0;
  for (let m = U_HEX.exec(text); m; m = U_HEX.exec(text)) codes.add(parseInt(m[1]!, 16));
  return codes;
}

/** The characters of a \u escape itself: when a deeper level \u-escaped those, they are what the text shows. */
const ESCAPE_SYNTAX = '\\u0123456789abcdefABCDEF';

/** The code units whose \u escape in a text may be part of one of the values' spellings. */
function spelledChars(values: readonly string[]): Set<number> {
  const out = new Set<number>();
  for (const text of [...values, ESCAPE_SYNTAX]) for (let i = 0; i < text.length; i++) out.add(text.charCodeAt(i));
  return out;
}

/** Whether one of the escaped characters belongs to the finder's secrets. */
function spellsAny(chars: Set<number>, codes: Set<number>): boolean {
  for (const c of codes) if (chars.has(c)) return true;
  return false;
}

const BACKSLASH_U = Buffer.from('\\u');
const PERCENT_5C = Buffer.from('%5c');
const PERCENT_5C_UPPER = Buffer.from('%5C');

const BACKSLASH = 0x5c;
const PERCENT = 0x25;

/**
 * Whether the bytes hold `\u` or a URL-encoded backslash. Most chunks hold neither a backslash
 * nor a percent sign: one byte search each (memchr) answers for them, cheaper than a substring
 * search per spelling.
 */
function bytesMayHoldUnicodeEscape(buf: Buffer): boolean {
  const backslash = buf.indexOf(BACKSLASH);
  if (backslash >= 0 && buf.includes(BACKSLASH_U, backslash)) return true;
  const percent = buf.indexOf(PERCENT);
  return percent >= 0 && (buf.includes(PERCENT_5C, percent) || buf.includes(PERCENT_5C_UPPER, percent));
}

function findAll(text: string, value: string, out: number[]): void {
  for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + value.length)) out.push(at, at + value.length);
}

/** A set of secrets searched in each view of a text. */
interface Finder {
  /** Whether the text may hold one of the secrets in a spelling that keeps its run. */
  probe(text: string): boolean;
  /** Pushes [start, end) of every occurrence in one view's text. */
  find(text: string, out: number[]): void;
  /** Whether there is nothing to search for. */
  none(): boolean;
  /** Whether a secret holds a space (then `+` in URL-encoded text may stand for one). */
  readonly spaced: boolean;
  /** Code units whose \\u escape may belong to a spelling of a secret (see spelledChars). */
  readonly chars: Set<number>;
}

/** The runs that stand for a set of values: undefined when one of them has none (it is then always searched). */
function runsOf(values: readonly string[], min: number): string[] | undefined {
  const runs = new Set<string>();
  for (const v of values) {
    const run = longestRun(v, min);
    if (run === undefined) return undefined;
    runs.add(run);
  }
  return [...runs].sort((a, b) => b.length - a.length);
}

/** A fixed set of secrets (the gateway's own), compiled once into one pattern and one probe. */
export class SecretMatcher implements Finder {
  /** Every value the secrets stand for (see secretValues), longest first. */
  readonly values: string[];
  readonly spaced: boolean;
  readonly chars: Set<number>;
  private readonly pattern: RegExp | undefined;
  /** The values' runs as one pattern; undefined: some value has none, always search. */
  private readonly runs: RegExp | undefined;
  private readonly runBytes: Buffer[] | undefined;

  constructor(values: Iterable<string | undefined | null>) {
    const all = new Set<string>();
    for (const value of values) if (typeof value === 'string') for (const v of secretValues(value)) all.add(v);
    this.values = [...all].sort((a, b) => b.length - a.length);
    this.spaced = this.values.some((v) => v.includes(' '));
    this.pattern = this.values.length ? new RegExp(this.values.map(escapeRegExp).join('|'), 'g') : undefined;
    this.chars = spelledChars(this.values);
    const runs = runsOf(this.values, 3);
    this.runs = runs?.length ? new RegExp(runs.map(escapeRegExp).join('|')) : undefined;
    this.runBytes = runs?.map((r) => Buffer.from(r, 'utf8'));
  }

  /** Whether there is nothing to mask. */
  get empty(): boolean {
    return this.pattern === undefined;
  }

  none(): boolean {
    return this.pattern === undefined;
  }

  probe(text: string): boolean {
    return this.pattern !== undefined && (!this.runs || this.runs.test(text));
  }

  probeBytes(buf: Buffer): boolean {
    return this.pattern !== undefined && (!this.runBytes || this.runBytes.some((r) => buf.includes(r)));
  }

  find(text: string, out: number[]): void {
    if (!this.pattern) return;
    this.pattern.lastIndex = 0;
    for (let m = this.pattern.exec(text); m; m = this.pattern.exec(text)) out.push(m.index, m.index + m[0].length);
  }

  /** The text with every secret masked in every spelling (the same string when there was none). */
  redact(text: string): string {
    return redactWith(text, this, NO_FINDERS);
  }

  /** Whether the bytes may carry any of the secrets (native search, no copy). */
  foundIn(buf: Buffer): boolean {
    return !this.empty && (this.probeBytes(buf) || bytesMayHoldUnicodeEscape(buf));
  }
}

/** A request's secret (few, known only per request): prepared once per value, searched with native substring search. */
class RequestSecret implements Finder {
  readonly values: string[];
  readonly spaced: boolean;
  readonly chars: Set<number>;
  /** The runs one of which any spelling of a value keeps (undefined: always searched). */
  readonly runs: string[] | undefined;
  /** The same runs as bytes (for answer bytes), made once per value. */
  readonly runBytes: Buffer[] | undefined;

  constructor(secret: string) {
    this.values = [...new Set(secretValues(secret))].sort((a, b) => b.length - a.length);
    this.spaced = this.values.some((v) => v.includes(' '));
    this.chars = spelledChars(this.values);
    this.runs = runsOf(this.values, 3);
    this.runBytes = this.runs?.map((r) => Buffer.from(r, 'utf8'));
  }

  none(): boolean {
    return this.values.length === 0;
  }

  probe(text: string): boolean {
    return !this.runs || this.runs.some((r) => text.includes(r));
  }

  find(text: string, out: number[]): void {
    for (const v of this.values) findAll(text, v, out);
  }
}

const PREPARED = new Map<string, RequestSecret | null>();

/** A request secret's finder; null for a value with nothing to mask (prepared once per value, a bounded number kept). */
function requestSecret(secret: string | undefined): RequestSecret | null {
  if (typeof secret !== 'string') return null;
  let out = PREPARED.get(secret);
  if (out !== undefined) return out;
  const prepared = new RequestSecret(secret);
  out = prepared.none() ? null : prepared;
  if (PREPARED.size >= 4096) PREPARED.clear();
  PREPARED.set(secret, out);
  return out;
}

/** The text with the given spans ([start, end) pairs, any order, overlapping or not) masked. */
function maskSpans(text: string, spans: number[]): string {
  const order: number[] = [];
  for (let i = 0; i < spans.length; i += 2) order.push(i);
  order.sort((a, b) => spans[a]! - spans[b]! || spans[b + 1]! - spans[a + 1]!);
  let out = '';
  let last = 0;
  let open = -1;
  let end = -1;
  for (const i of order) {
    const s = spans[i]!;
    const e = spans[i + 1]!;
    if (e <= s) continue;
    if (open >= 0 && s < end) {
      if (e > end) end = e;
      continue;
    }
    if (open >= 0) {
      out += text.slice(last, open) + REDACTED;
      last = end;
    }
    open = s;
    end = e;
  }
  if (open >= 0) out += text.slice(last, open) + REDACTED + text.slice(end);
  return out;
}

/**
 * Masks what the finders find in every view of the text (see escape-views.ts): the text itself
 * and its JSON-unescaped and URL-decoded spellings. A finder whose runs the text lacks is
 * skipped unless the text \u-escapes one of its secrets' characters; text no finder may hold is
 * returned as it is, without a view made.
 */
function redactWith(text: string, gateway: Finder | undefined, request: readonly Finder[]): string {
  const spans = findSpans(text, gateway, request);
  return spans ? maskSpans(text, spans) : text;
}

/** A text's \u-escaped code units (escapedCodes), found once and only when asked. */
class TextEscapes {
  private codes: Set<number> | null | undefined;

  constructor(private readonly text: string) {}

  /** Whether the text \u-escapes one of `chars`. */
  spell(chars: Set<number>): boolean {
    this.codes ??= escapedCodes(this.text) ?? null;
    return this.codes !== null && spellsAny(chars, this.codes);
  }
}

/** Whether the text is searched for a finder's secrets: it holds one of their runs, or \u-escapes one of their characters. */
function searched(f: Finder, text: string, escapes: TextEscapes): boolean {
  return !f.none() && (f.probe(text) || escapes.spell(f.chars));
}

/** The [start, end) spans of every secret in the text (see redactWith); undefined when none. */
function findSpans(text: string, gateway: Finder | undefined, request: readonly Finder[]): number[] | undefined {
  if (text.length < 2) return undefined;
  const escapes = new TextEscapes(text);
  let active: Finder[] | undefined;
  if (gateway && searched(gateway, text, escapes)) active = [gateway];
  for (const f of request) if (searched(f, text, escapes)) (active ??= []).push(f);
  if (!active) return undefined;
  const spans: number[] = [];
  const found: number[] = [];
  const plus = active.some((f) => f.spaced);
  forEachView(text, plus, (view) => {
    found.length = 0;
    for (const f of active!) f.find(view.text, found);
    // Matches of all views are joined: a view decoded more or less often than a part of the text
    // is escaped can find a secret there too, within or beside its true spelling (then with the
    // escaped character next to it: masked too, whole).
    for (let i = 0; i < found.length; i += 2) spans.push(view.origin(found[i]!), view.origin(found[i + 1]!));
  });
  return spans.length ? spans : undefined;
}

const NO_FINDERS: Finder[] = [];

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The finders of a request's secrets. */
function requestFinders(values: Iterable<string | undefined>): RequestSecret[] {
  const out: RequestSecret[] = [];
  for (const v of values) {
    const f = requestSecret(v);
    if (f) out.push(f);
  }
  return out;
}

let gatewaySecrets = new SecretMatcher([]);
const registered = new Set<string>();

/** Adds secrets the gateway holds (config values, tool-server credentials) to the one redactor. */
export function registerSecrets(values: Iterable<string | undefined | null>): void {
  let added = false;
  for (const value of values) {
    if (maskable(value) && !registered.has(value)) {
      registered.add(value);
      added = true;
    }
  }
  if (added) {
    gatewaySecrets = new SecretMatcher(registered);
    repeatedLogTexts.clear();
  }
}

/** Whether anything would be masked at all: the gateway holds secrets, or the request carries one. */
export function holdsSecrets(requestSecrets: readonly (string | undefined)[] = []): boolean {
  return !gatewaySecrets.empty || requestSecrets.some((s) => requestSecret(s) !== null);
}

/** Masks the gateway's secrets and the request's: for answers and tool results (exact text otherwise kept). */
export function redactAnswer(text: string, requestSecrets: Iterable<string | undefined> = []): string {
  return redactWith(text, gatewaySecrets, requestFinders(requestSecrets));
}

/** The same for bytes: untouched (the same Buffer) unless a secret may be in them. */
export function redactAnswerBytes(buf: Buffer, requestSecrets: readonly (string | undefined)[] = []): Buffer {
  return redactBytesWith(buf, requestFinders(requestSecrets));
}

/**
 * redactAnswerBytes for the many chunks of one answer: the request's secrets prepared once
 * (a stream's chunks each pay only the searches).
 */
export function answerBytesRedactor(requestSecrets: readonly (string | undefined)[] = []): (buf: Buffer) => Buffer {
  const finders = requestFinders(requestSecrets);
  const probes = probeRunsOf(finders);
  return (buf) => redactBytesWith(buf, finders, probes);
}

/**
 * The request finders' runs as one list without repeats (a request's secrets are often one key
 * in two spellings, `Bearer <key>` and `<key>`: one search, not two); null when a finder must
 * always be searched.
 */
function probeRunsOf(finders: readonly RequestSecret[]): readonly Buffer[] | null {
  if (finders.length === 1) return finders[0]!.runBytes ?? null;
  const runs = new Map<string, Buffer>();
  for (const f of finders) {
    if (!f.runs || !f.runBytes) return null;
    for (let i = 0; i < f.runs.length; i++) runs.set(f.runs[i]!, f.runBytes[i]!);
  }
  return [...runs.values()];
}

function redactBytesWith(buf: Buffer, finders: RequestSecret[], probes: readonly Buffer[] | null = probeRunsOf(finders)): Buffer {
  const any = !gatewaySecrets.empty || finders.length > 0;
  if (!any) return buf;
  let hit = probes === null || gatewaySecrets.probeBytes(buf);
  for (let i = 0; !hit && i < probes!.length; i++) hit = buf.includes(probes![i]!);
  hit ||= bytesMayHoldUnicodeEscape(buf);
  if (!hit) return buf;
  const text = buf.toString('utf8');
  const out = redactWith(text, gatewaySecrets, finders);
  return out === text ? buf : Buffer.from(out, 'utf8');
}

const BEARER = /(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi;
const KEY_SHAPES = /\b(sk|pk|rk|gsk|xai|key)-[A-Za-z0-9_-]{8,}/g;
/**
 * The same shapes, tested before a replace: most texts hold neither, and a test costs a match
 * where a global replace also compiles its replacement and sets up a match cache every call.
 * Not global, so a test keeps no position between calls.
 */
const once = (shape: RegExp): RegExp => new RegExp(shape.source, shape.flags.replace('g', ''));
const BEARER_PROBE = once(BEARER);
const KEY_SHAPE_PROBE = once(KEY_SHAPES);

/**
 * Masks known secrets and credential shapes the gateway was not told about (bearer values,
 * well-known key prefixes): for error messages, debug fields and log lines.
 */
export function redactSecrets(text: string, requestSecrets: Iterable<string | undefined> = []): string {
  return redactSecretsWith(text, requestFinders(requestSecrets));
}

/** redactSecrets with the request's secrets' finders made already. */
function redactSecretsWith(text: string, request: readonly Finder[]): string {
  let out = redactWith(text, gatewaySecrets, request);
  if (BEARER_PROBE.test(out)) out = out.replace(BEARER, `$1${REDACTED}`);
  return KEY_SHAPE_PROBE.test(out) ? out.replace(KEY_SHAPES, REDACTED) : out;
}

/** Masks a log line as written (JSON text): the gateway's secrets in every escaping, and credential shapes. */
export function redactLogLine(line: string): string {
  return redactSecrets(line);
}

/** Log texts that repeat (a caller's name, the fields of an audit line), masked while the gateway's secrets stay the same. */
const repeatedLogTexts = new Map<string, string>();
const MAX_REPEATED = 1024;

/** redactLogLine for a part of a log line that repeats from request to request: masked once, then looked up. */
export function redactRepeatedLogText(text: string): string {
  let out = repeatedLogTexts.get(text);
  if (out === undefined) {
    out = redactLogLine(text);
    if (repeatedLogTexts.size >= MAX_REPEATED) repeatedLogTexts.clear();
    repeatedLogTexts.set(text, out);
  }
  return out;
}

/**
 * redactSecrets for a part of a log line that repeats from request to request (a model name)
 * beside the request's own secrets: where no request secret can be in the text (none of its
 * spellings, see findSpans), the text masks as redactRepeatedLogText does, looked up rather than
 * masked again; else it is masked whole, the request's secrets first.
 */
export function redactRepeatedLogTextOf(text: string, requestSecrets: Iterable<string | undefined>): string {
  const request = requestFinders(requestSecrets);
  if (request.length > 0 && mayHold(text, request)) return redactSecretsWith(text, request);
  return redactRepeatedLogText(text);
}

/** Whether findSpans would search `text` for any of the finders. */
function mayHold(text: string, finders: readonly Finder[]): boolean {
  if (text.length < 2) return false;
  const escapes = new TextEscapes(text);
  return finders.some((f) => searched(f, text, escapes));
}

/** Masks secret-named fields and secret values anywhere in a value (for debug blocks and log fields). */
export function redactObject<T>(value: T, secrets: Iterable<string | undefined> = [], depth = 0): T {
  if (depth > 16 || value === null || value === undefined) return value;
  if (typeof value === 'string') return redactSecrets(value, secrets) as T;
  if (Array.isArray(value)) return value.map((v) => redactObject(v, secrets, depth + 1)) as T;
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] = isSecretField(k) && v != null && v !== '' ? REDACTED : redactObject(v, secrets, depth + 1);
    }
    return out as T;
  }
  return value;
}

/**
 * Masks secret values in a value relayed from elsewhere (tool results, JSON-RPC errors): every
 * string, keys included, keeping the structure; fields are not masked by name (a tool's
 * `token_count` is not a credential). Returns the same object when nothing was found.
 */
export function redactRelayed<T>(value: T, secrets: Iterable<string | undefined> = []): T {
  const list = [...secrets];
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return redactAnswer(v, list);
    if (v === null || typeof v !== 'object' || depth > 64) return v;
    if (Array.isArray(v)) {
      let changed = false;
      const out = v.map((item) => {
        const r = walk(item, depth + 1);
        if (r !== item) changed = true;
        return r;
      });
      return changed ? out : v;
    }
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, item] of Object.entries(v as Record<string, unknown>)) {
      const key = redactAnswer(k, list);
      const r = walk(item, depth + 1);
      if (r !== item || key !== k) changed = true;
      out[key] = r;
    }
    return changed ? out : v;
  };
  return walk(value, 0) as T;
}

/**
 * Characters a spelling of one secret character may take: a `\uXXXX` escape JSON-escaped twice
 * more (`\\\\u0041`, 9), or a 4-byte UTF-8 character URL-encoded (12 for its two UTF-16 units).
 */
const SPELLING_EXPANSION = 12;
const MAX_HELD = 64 * 1024;

/**
 * Where a stream's text may be cut at or before `cut`: not inside a `\\uXXXX` or `%XX` escape
 * nor a run of backslashes (the rest would be read with another parity of escapes), not between
 * the halves of a surrogate pair.
 */
function safeCut(text: string, cut: number): number {
  let at = cut;
  for (let i = cut - 1; i >= 0 && i >= cut - 6; i--) {
    const c = text.charCodeAt(i);
    if (c === 92 || c === 37) at = i;
  }
  while (at > 0 && text.charCodeAt(at - 1) === 92) at--;
  const last = text.charCodeAt(at - 1);
  return last >= 0xd800 && last <= 0xdbff ? at - 1 : at;
}

/**
 * A stream that masks the gateway's and the request's secrets in text passing through (a
 * transcription as text, an upstream's plain-text answer), whatever the chunking: the last
 * characters of each chunk, as many as the longest spelling of a secret can take, wait unmasked
 * for the next chunk, and so does a secret found across that cut. The text sent on is masked.
 */
export function redactingStream(requestSecrets: Iterable<string | undefined>): Transform {
  const finders = requestFinders(requestSecrets);
  let longest = 0;
  for (const v of gatewaySecrets.values) longest = Math.max(longest, v.length);
  for (const f of finders) for (const v of f.values) longest = Math.max(longest, v.length);
  const keep = Math.min(MAX_HELD, longest * SPELLING_EXPANSION);
  const decoder = new StringDecoder('utf8');
  let held = '';
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      if (!keep) return done(null, chunk);
      const data = held + decoder.write(chunk);
      if (data.length <= keep) {
        held = data;
        return done();
      }
      let cut = safeCut(data, data.length - keep);
      const spans = findSpans(data, gatewaySecrets, finders) ?? [];
      // A secret across the cut waits whole for the next chunk.
      for (let moved = true; moved;) {
        moved = false;
        for (let i = 0; i < spans.length; i += 2)
          if (spans[i]! < cut && spans[i + 1]! > cut) {
            cut = spans[i]!;
            moved = true;
          }
      }
      const sent: number[] = [];
      for (let i = 0; i < spans.length; i += 2) if (spans[i + 1]! <= cut) sent.push(spans[i]!, spans[i + 1]!);
      held = data.slice(cut);
      done(null, Buffer.from(sent.length ? maskSpans(data.slice(0, cut), sent) : data.slice(0, cut), 'utf8'));
    },
    flush(done) {
      if (!keep) return done();
      const rest = redactWith(held + decoder.end(), gatewaySecrets, finders);
      done(null, rest ? Buffer.from(rest, 'utf8') : undefined);
    },
  });
}
