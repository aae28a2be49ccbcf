import cluster from 'node:cluster';
import { pino, type Logger, type DestinationStream } from 'pino';
import { isDeclaredSecretField, isSecretField, redactLogLine } from '../errors/redact.js';

export type { Logger };

export const CENSOR = '[REDACTED]';

/**
 * Fields masked by name in every log line (as pino paths: `*` is any top-level field). Every
 * line is then passed, as written, through the one redactor (errors/redact.ts): the gateway's
 * secrets in any escaping, and credential shapes.
 */
export const REDACT_PATHS = [
  'headers.authorization',
  'headers["x-gateway-api-key"]',
  'headers["x-gateway-token"]',
  'headers["x-api-key"]',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers["x-gateway-api-key"]',
  'req.headers["x-gateway-token"]',
  'req.headers["x-api-key"]',
  'apiKey',
  'api_key',
  'token',
  'secret',
  '*.apiKey',
  '*.api_key',
  '*.token',
  '*.secret',
  '*.clientSecret',
];

/**
 * The workers of a cluster write to one stdout pipe: each line goes out in a write of its own
 * (sync), so lines from two workers never interleave (a pipe keeps writes up to 4 KiB whole).
 */
function workerDestination(): DestinationStream {
  return pino.destination({ dest: 1, sync: true });
}

const TOP_FIELDS = new Set(['apiKey', 'api_key', 'token', 'secret']);
const NESTED_NAMES = new Set(['apiKey', 'api_key', 'token', 'secret', 'clientSecret']);
/** The nested names, and every field an extension declared secret (declareSecretFields). */
const NESTED_FIELDS: Names = { has: (key) => NESTED_NAMES.has(key) || isDeclaredSecretField(key) };
/** Header names the redactor holds secret (Authorization, api-key, x-api-key, cookies...): one list for answers and log lines. */
const HEADER_FIELDS: Names = { has: isSecretField };

type Fields = Record<string, unknown>;
type Names = Pick<ReadonlySet<string>, 'has'>;

function isPlainObject(v: unknown): v is Fields {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A copy of `obj` with the keys of `names` present in it masked; `obj` itself when none is. */
function masked(obj: Fields, names: Names, extra?: (key: string, value: unknown) => unknown): Fields {
  let out: Fields | undefined;
  for (const key in obj) {
    const value = obj[key];
    let next = value;
    if (names.has(key) && value !== undefined) next = CENSOR;
    else if (extra) next = extra(key, value);
    if (next !== value) (out ??= { ...obj })[key] = next;
  }
  return out ?? obj;
}

/** `req.headers`: the header fields masked. */
function maskRequestHeaders(key: string, value: unknown): unknown {
  return key === 'headers' && isPlainObject(value) ? masked(value, HEADER_FIELDS) : value;
}

/**
 * The fields of REDACT_PATHS masked in a log line's object, checked key by key: a line without
 * any of those fields (nearly every line) is the same object, with nothing copied or walked.
 */
export function maskSecretFields(obj: Fields): Fields {
  return masked(obj, TOP_FIELDS, (key, value) => {
    if (!isPlainObject(value)) return value;
    const inner = masked(value, NESTED_FIELDS, key === 'req' ? maskRequestHeaders : undefined);
    return key === 'headers' ? masked(inner, HEADER_FIELDS) : inner;
  });
}

const beforeLine = new Set<() => void>();

/**
 * Runs `flush` before pino writes any line of any logger (the request log hands over the lines
 * it holds first, so lines keep their order); the returned function stops it.
 */
export function beforeLogLine(flush: () => void): () => void {
  beforeLine.add(flush);
  return () => beforeLine.delete(flush);
}

function streamWrite(line: string): string {
  if (beforeLine.size) for (const flush of beforeLine) flush();
  return redactLogLine(line);
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      // The workers of a cluster (server.workers) share stdout: each line says which one wrote it.
      base: cluster.isWorker ? { service: 'ai-gateway', pid: process.pid } : { service: 'ai-gateway' },
      // Fields masked by name without pino's redact paths (a walk of every path on every line).
      formatters: { log: maskSecretFields },
      hooks: { streamWrite },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    // Batched, asynchronous writes to stdout; flushed at least every 250 ms so an operator's
    // terminal never lags, and on exit.
    destination ?? (cluster.isWorker ? workerDestination() : pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 250 })),
  );
}
