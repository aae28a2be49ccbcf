import { pino, type Logger } from 'pino';
import { redactLogLine } from '../errors/redact.js';
import { beforeLogLine } from '../observability/logger.js';

/** The fields of the one line the edge writes per request. */
export interface RequestLine {
  requestId: string;
  method: string;
  route: string;
  status: number;
  provider: string;
  retries: number;
  ms: number;
  user?: string;
  error?: string;
  clientGone?: boolean;
}

const LEVELS = { info: 30, debug: 20 } as const;

interface Destination {
  write(line: string): unknown;
  /** Present on pino's own destinations (sonic-boom). */
  flushSync?(): void;
}

/**
 * Request lines handed to a pino destination together, at most this many bytes: pino's
 * destination appends each write to its pending text and measures that text again on every
 * write (a copy of all it holds, per line). 4 KiB keeps each hand-over one atomic pipe write
 * for cluster workers sharing stdout.
 */
const BATCH_BYTES = 4096;

/** JSON text of a string field; the table's own values (routes, providers) are quoted once. */
const quoted = new Map<string, string>();
function quote(value: string): string {
  let out = quoted.get(value);
  if (out === undefined) {
    out = JSON.stringify(value);
    if (quoted.size < 4096) quoted.set(value, out);
  }
  return out;
}

let lastMs = 0;
let lastTime = '';
/** pino's ISO time, made at most once per millisecond. */
function isoTime(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTime = new Date(now).toISOString();
  }
  return lastTime;
}

/** Request lines not yet handed to each pino destination, and their UTF-8 size. */
const held = new Map<Destination, { text: string; bytes: number }>();
let flushScheduled = false;
let hooked = false;

/** Hands every line held to its destination (before any other log line, at the end of the loop's turn, at exit). */
function flushHeld(): void {
  flushScheduled = false;
  if (!held.size) return;
  const batches = [...held];
  held.clear();
  for (const [destination, batch] of batches) {
    try {
      destination.write(batch.text);
    } catch {
      // a destination closed meanwhile (the gateway stopped): its lines have nowhere to go
    }
  }
}

function flushAtExit(): void {
  const destinations = [...held.keys()];
  flushHeld();
  for (const destination of destinations) {
    try {
      destination.flushSync?.();
    } catch {
      // a destination that cannot flush now loses nothing it had not already lost
    }
  }
}

function hold(destination: Destination, text: string): void {
  if (!hooked) {
    hooked = true;
    beforeLogLine(flushHeld);
    process.once('exit', flushAtExit);
  }
  const bytes = Buffer.byteLength(text);
  const batch = held.get(destination);
  if (!batch) held.set(destination, { text, bytes });
  else if (batch.bytes + bytes > BATCH_BYTES) {
    destination.write(batch.text);
    batch.text = text;
    batch.bytes = bytes;
  } else {
    batch.text += text;
    batch.bytes += bytes;
  }
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flushHeld);
  }
}

/**
 * The per-request log line, written with a fixed serializer: the same JSON line pino writes
 * for `logger.info(fields, 'request')` (level, time, the logger's bindings, the fields, msg),
 * straight to the logger's destination. None of its fields can hold a secret (ids, the route
 * pattern, a status, a provider id, numbers), so it skips the field masking and the line
 * redactor; the caller's user name, the one free-form value, goes through the redactor. On
 * pino's own destinations the lines of one turn of the event loop are handed over together
 * (and before any other log line, so the order of lines is kept).
 */
export class RequestLog {
  private readonly destination: Destination | undefined;
  private readonly bindings: string;
  private readonly batching: boolean;

  constructor(private readonly logger: Logger) {
    const record = logger as unknown as Record<symbol, unknown>;
    const stream = record[pino.symbols.streamSym] as Destination | undefined;
    const bindings = record[pino.symbols.chindingsSym];
    const fixed = typeof stream?.write === 'function' && typeof bindings === 'string' && record[pino.symbols.messageKeySym] === 'msg';
    this.destination = fixed ? stream : undefined;
    this.bindings = fixed ? (bindings as string) : '';
    this.batching = fixed && typeof stream!.flushSync === 'function';
  }

  write(level: keyof typeof LEVELS, line: RequestLine): void {
    const value = LEVELS[level];
    if (this.logger.levelVal > value) return;
    if (!this.destination) {
      this.logger[level](line, 'request');
      return;
    }
    let text = `{"level":${value},"time":"${isoTime()}"${this.bindings},"requestId":${JSON.stringify(line.requestId)},"method":${quote(line.method)},"route":${quote(line.route)},"status":${line.status},"provider":${quote(line.provider)},"retries":${line.retries},"ms":${line.ms}`;
    if (line.user !== undefined) text += `,"user":${redactLogLine(JSON.stringify(line.user))}`;
    if (line.error !== undefined) text += `,"error":${quote(line.error)}`;
    if (line.clientGone) text += ',"clientGone":true';
    text += ',"msg":"request"}\n';
    if (this.batching) hold(this.destination, text);
    else this.destination.write(text);
  }
}
