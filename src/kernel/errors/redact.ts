/**
 * The one redactor: every secret the gateway holds (registered once from the config) or is
 * handed with a request (the caller's keys, kept in ctx.secrets) is masked as [REDACTED]
 * wherever it would leave the process: answers, error messages and debug fields, JSON-RPC
 * errors and tool results relayed from tool servers, and every log line.
 *
 * A secret is matched in each spelling text may carry it in: as it is, JSON-escaped (once, and
 * twice for JSON inside a JSON string, and with non-ASCII as \u escapes), and URL-encoded. A value
 * given as `<scheme> <credential>` (an Authorization header) also stands for its bare
 * credential, and a Basic credential for its decoded `user:password` and password.
 *
 * Speed: the gateway's own secrets are compiled into one pattern when they are registered; a
 * request's few secrets are searched with native substring search. Text without any secret
 * is returned as it is, untouched and uncopied.
 */
import { Transform } from 'node:stream';

export const REDACTED = '[REDACTED]';

/** Shorter values cannot be masked without mangling ordinary text (every "1" or "on"). */
export const MIN_SECRET_LENGTH = 4;

/** Values that cannot be secrets in any useful sense, and whose masking would break JSON. */
const NOT_SECRET = /^(true|false|null|yes|no|on|off|-?\d+(\.\d+)?)$/i;

const SECRET_FIELD =
  /^(authorization|proxy-authorization|x-gateway-api-key|x-gateway-token|api[-_]?key|x-api-key|cookie|set-cookie|.*secret.*|.*password.*|.*token$|aws_session_token|aws_access_key_id|vertex_service_account_json|private_key)$/i;

/** Whether a field of that name holds a secret (headers, config keys, body fields). */
export function isSecretField(name: string): boolean {
  return SECRET_FIELD.test(name);
}

/** Whether `value` is worth masking (long enough, not a bare literal). */
export function maskable(value: unknown): value is string {
  return typeof value === 'string' && value.length >= MIN_SECRET_LENGTH && !NOT_SECRET.test(value.trim());
}

/**
 * A secret shorter than MIN_SECRET_LENGTH (a 2-character env value, a 3-character header
 * value). Masking it inside running text would mangle answers (every "eu" or "ab1"), so it is
 * masked only where it stands as a whole value: a relayed field (tool result, JSON-RPC error
 * data) whose value is exactly it, and a JSON string `"<value>"` inside text (a tool's JSON text,
 * an upstream's JSON error body, a JSON log line), in both JSON escapings. JSON literals and
 * numbers are never secrets.
 */
export function shortSecret(value: unknown): boolean {
  return typeof value === 'string' && value.trim().length > 0 && value.length < MIN_SECRET_LENGTH && !NOT_SECRET.test(value.trim());
}

/** The short secrets one configured value stands for: itself, or the short credential of an Authorization value. */
export function shortParts(value: unknown): string[] {
  if (typeof value !== 'string') return NONE;
  let parts = SHORT_PARTS.get(value);
  if (parts) return parts;
  if (shortSecret(value)) parts = [value];
  else {
    const credential = AUTH_SCHEME.exec(value.trim())?.[2];
    parts = credential !== undefined && shortSecret(credential) ? [credential] : NONE;
  }
  // Asked for every request secret of every answer: remembered (a bounded number).
  if (SHORT_PARTS.size >= 4096) SHORT_PARTS.clear();
  SHORT_PARTS.set(value, parts);
  return parts;
}

const NONE: string[] = [];
const SHORT_PARTS = new Map<string, string[]>();

/** The whole-value spellings of a short secret inside text, each with what it becomes. */
function quotedForms(value: string): Array<[string, string]> {
  const json = JSON.stringify(value).slice(1, -1);
  const twice = JSON.stringify(json).slice(1, -1);
  return [
    [`"${json}"`, `"${REDACTED}"`],
    [`\\"${twice}\\"`, `\\"${REDACTED}\\"`],
  ];
}

function redactQuoted(text: string, values: Iterable<string>): string {
  let out = text;
  for (const value of values) {
    for (const [form, mask] of quotedForms(value)) if (out.includes(form)) out = out.split(form).join(mask);
  }
  return out;
}

const AUTH_SCHEME = /^(bearer|basic|token|bot|apikey|api-key|key|dpop)\s+(\S(?:.*\S)?)\s*$/i;

/** The values one secret stands for: itself, and the credential inside an Authorization value. */
export function secretValues(value: string): string[] {
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
  return out.filter(maskable);
}

function asciiJson(text: string): string {
  return text.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The spellings of one value that text may carry. */
export function secretForms(value: string): string[] {
  const forms = new Set<string>([value]);
  const json = JSON.stringify(value).slice(1, -1);
  forms.add(json);
  forms.add(asciiJson(json));
  forms.add(json.replace(/\//g, '\\/'));
  forms.add(JSON.stringify(json).slice(1, -1));
  try {
    const url = encodeURIComponent(value);
    forms.add(url);
    forms.add(url.replace(/%20/g, '+'));
    forms.add(url.toLowerCase() === url ? url : url.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()));
  } catch {
    // A lone surrogate has no URL encoding; its other forms still count.
  }
  return [...forms].filter((f) => f.length >= MIN_SECRET_LENGTH);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Every form of every value, longest first (so a secret containing another is masked whole). */
function formsOf(values: Iterable<string | undefined | null>): string[] {
  const forms = new Set<string>();
  for (const value of values) {
    if (!maskable(value)) continue;
    for (const v of secretValues(value)) for (const f of secretForms(v)) forms.add(f);
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/** A fixed set of secrets compiled into one pattern. */
export class SecretMatcher {
  /** Every spelling of every secret, longest first. */
  readonly forms: string[];
  /** Secrets too short to mask in running text (see shortSecret): masked as whole values only. */
  readonly shortValues: string[];
  private readonly buffers: Buffer[];
  private readonly pattern: RegExp | undefined;

  constructor(values: Iterable<string | undefined | null>) {
    const list = [...values];
    this.forms = formsOf(list);
    this.shortValues = [...new Set(list.flatMap(shortParts))];
    this.buffers = this.forms.map((f) => Buffer.from(f, 'utf8'));
    this.pattern = this.forms.length ? new RegExp(this.forms.map(escapeRegExp).join('|'), 'g') : undefined;
  }

  /** Whether answers have nothing to mask (short secrets are not masked in answers). */
  get empty(): boolean {
    return this.pattern === undefined;
  }

  /** The text with every secret masked (the same string when there was none); short secrets aside. */
  redact(text: string): string {
    if (!this.pattern || text.length < MIN_SECRET_LENGTH) return text;
    return text.replace(this.pattern, REDACTED);
  }

  /** The short secrets masked where they stand as a whole JSON string (errors, debug fields, log lines). */
  redactShort(text: string): string {
    return this.shortValues.length ? redactQuoted(text, this.shortValues) : text;
  }

  /** Whether `value` is, as a whole, one of the short secrets. */
  isShortSecret(value: string): boolean {
    return this.shortValues.length > 0 && this.shortValues.includes(value.trim());
  }

  /** The spellings as bytes, longest first. */
  get byteForms(): Buffer[] {
    return this.buffers;
  }

  /** Whether the bytes carry any of the secrets (native search, no copy). */
  foundIn(buf: Buffer): boolean {
    for (const b of this.buffers) if (buf.indexOf(b) >= 0) return true;
    return false;
  }
}

/** A request secret, prepared once: each value it stands for, with the run every spelling shares. */
interface Prepared {
  value: string;
  /** Letters, digits and `_.~-` that no escaping changes: absent from a text, so is every form. */
  run: string | undefined;
  /** The run as bytes (searched in answers' bytes without converting the string each time). */
  runBytes: Buffer | undefined;
}

const PREPARED = new Map<string, Prepared[]>();

const NOTHING: Prepared[] = [];

/** A request secret's prepared values; none for a value that cannot be masked (checked once per value). */
function prepared(secret: string | undefined): Prepared[] {
  if (secret === undefined) return NOTHING;
  let out = PREPARED.get(secret);
  if (out) return out;
  out = !maskable(secret)
    ? NOTHING
    : secretValues(secret).map((value) => {
        let best: string | undefined;
        for (const m of value.matchAll(/[A-Za-z0-9_.~-]+/g)) if (!best || m[0].length > best.length) best = m[0];
        const run = best && best.length >= MIN_SECRET_LENGTH ? best : undefined;
        return { value, run, runBytes: run === undefined ? undefined : Buffer.from(run, 'utf8') };
      });
  // Only a bounded number of request secrets is remembered.
  if (PREPARED.size >= 4096) PREPARED.clear();
  PREPARED.set(secret, out);
  return out;
}

/** Masks a request's own secrets (few, known only per request): native substring search per form. */
function redactValues(text: string, values: Iterable<string | undefined>): string {
  let forms: string[] | undefined;
  let short: string[] | undefined;
  // A key usually comes in several spellings (`Bearer <key>`, the key, the key sent upstream):
  // they share their run, searched once.
  let absent: string | undefined;
  for (const secret of values) {
    for (const part of shortParts(secret)) if (text.includes(part)) (short ??= []).push(part);
    for (const p of prepared(secret)) {
      // The common case: the stable run is absent, and so is every spelling of the value.
      if (p.run !== undefined && (p.run === absent || !text.includes(p.run))) {
        absent = p.run;
        continue;
      }
      forms ??= [];
      for (const f of secretForms(p.value)) forms.push(f);
    }
  }
  let out = text;
  if (forms) {
    forms.sort((a, b) => b.length - a.length);
    for (const form of forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
  }
  return short ? redactQuoted(out, short) : out;
}

/** Whether bytes may carry a request secret (the same cheap check, on bytes). */
function bytesMayContain(buf: Buffer, values: readonly (string | undefined)[]): boolean {
  let absent: string | undefined;
  for (const secret of values) {
    for (const part of shortParts(secret)) if (buf.indexOf(part) >= 0) return true;
    for (const p of prepared(secret)) {
      if (p.run === absent && absent !== undefined) continue;
      if (p.runBytes === undefined || buf.indexOf(p.runBytes) >= 0) return true;
      absent = p.run;
    }
  }
  return false;
}

let gatewaySecrets = new SecretMatcher([]);
const registered = new Set<string>();

/** Adds secrets the gateway holds (config values, tool-server credentials) to the one redactor. */
export function registerSecrets(values: Iterable<string | undefined | null>): void {
  let added = false;
  for (const value of values) {
    if (typeof value === 'string' && (maskable(value) || shortParts(value).length > 0) && !registered.has(value)) {
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
  return !gatewaySecrets.empty || requestSecrets.some((s) => maskable(s) || shortParts(s).length > 0);
}

/** Masks the gateway's secrets and the request's: for answers and tool results (exact text otherwise kept). */
export function redactAnswer(text: string, requestSecrets: Iterable<string | undefined> = []): string {
  return gatewaySecrets.redact(redactValues(text, requestSecrets));
}

/** The same for bytes: untouched (the same Buffer) unless a secret is found. */
export function redactAnswerBytes(buf: Buffer, requestSecrets: readonly (string | undefined)[] = []): Buffer {
  const hit = (!gatewaySecrets.empty && gatewaySecrets.foundIn(buf)) || bytesMayContain(buf, requestSecrets);
  if (!hit) return buf;
  const text = buf.toString('utf8');
  const out = redactAnswer(text, requestSecrets);
  return out === text ? buf : Buffer.from(out, 'utf8');
}

const BEARER = /(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi;
const KEY_SHAPES = /\b(sk|pk|rk|gsk|xai|key)-[A-Za-z0-9_-]{8,}/g;

/**
 * Masks known secrets and credential shapes the gateway was not told about (bearer values,
 * well-known key prefixes): for error messages, debug fields and log lines. The gateway's short
 * secrets (see shortSecret) are masked here where they stand as a whole JSON string, but not in
 * answers (redactAnswer), where a 2-letter env value would mask every "en" of every answer.
 */
export function redactSecrets(text: string, requestSecrets: Iterable<string | undefined> = []): string {
  const out = gatewaySecrets.redactShort(redactAnswer(text, requestSecrets));
  return out.replace(BEARER, `$1${REDACTED}`).replace(KEY_SHAPES, REDACTED);
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
 * `token_count` is not a credential), but a string that is, as a whole, a short secret (see
 * shortSecret) is. Returns the same object when nothing was found.
 */
export function redactRelayed<T>(value: T, secrets: Iterable<string | undefined> = []): T {
  const list = [...secrets];
  const short = list.flatMap(shortParts).map((s) => s.trim());
  const wholeShort = (text: string) => (short.length > 0 && short.includes(text.trim())) || gatewaySecrets.isShortSecret(text);
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return wholeShort(v) ? REDACTED : redactAnswer(v, list);
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

/** Every byte spelling of the gateway's and a request's secrets, longest first. */
function byteForms(requestSecrets: Iterable<string | undefined>): Buffer[] {
  const own = formsOf(requestSecrets);
  if (!own.length) return gatewaySecrets.byteForms;
  const forms = new Set<string>(gatewaySecrets.forms);
  for (const f of own) forms.add(f);
  return [...forms].sort((a, b) => b.length - a.length).map((f) => Buffer.from(f, 'utf8'));
}

const REDACTED_BYTES = Buffer.from(REDACTED);

function replaceBytes(data: Buffer, forms: Buffer[]): Buffer {
  let out = data;
  for (const form of forms) {
    let at = out.indexOf(form);
    if (at < 0) continue;
    const parts: Buffer[] = [];
    let from = 0;
    while (at >= 0) {
      parts.push(out.subarray(from, at), REDACTED_BYTES);
      from = at + form.length;
      at = out.indexOf(form, from);
    }
    parts.push(out.subarray(from));
    out = Buffer.concat(parts);
  }
  return out;
}

/**
 * A stream that masks the gateway's and the request's secrets in text passing through (a
 * transcription as text, an upstream's plain-text answer), whatever the chunking: the last
 * bytes of each chunk, as many as the longest secret less one, wait for the next.
 */
export function redactingStream(requestSecrets: Iterable<string | undefined>): Transform {
  const forms = byteForms(requestSecrets);
  const keep = forms.length ? forms[0]!.length - 1 : 0;
  let held: Buffer = Buffer.alloc(0);
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      if (!forms.length) return done(null, chunk);
      const data = replaceBytes(held.length ? Buffer.concat([held, chunk]) : chunk, forms);
      if (data.length <= keep) {
        held = data;
        return done();
      }
      held = data.subarray(data.length - keep);
      done(null, data.subarray(0, data.length - keep));
    },
    flush(done) {
      done(null, held.length ? replaceBytes(held, forms) : undefined);
    },
  });
}
