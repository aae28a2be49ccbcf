import { pino, type Logger } from 'pino';
import { redactLogLine } from '../errors/redact.js';

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
}

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

/**
 * The per-request log line, written with a fixed serializer: the same JSON line pino writes
 * for `logger.info(fields, 'request')` (level, time, the logger's bindings, the fields, msg),
 * straight to the logger's destination. None of its fields can hold a secret (ids, the route
 * pattern, a status, a provider id, numbers), so it skips the field masking and the line
 * redactor; the caller's user name, the one free-form value, goes through the redactor.
 */
export class RequestLog {
  private readonly destination: Destination | undefined;
  private readonly bindings: string;

  constructor(private readonly logger: Logger) {
    const record = logger as unknown as Record<symbol, unknown>;
    const stream = record[pino.symbols.streamSym] as Destination | undefined;
    const bindings = record[pino.symbols.chindingsSym];
    const fixed = typeof stream?.write === 'function' && typeof bindings === 'string' && record[pino.symbols.messageKeySym] === 'msg';
    this.destination = fixed ? stream : undefined;
    this.bindings = fixed ? (bindings as string) : '';
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
    this.destination.write(`${text},"msg":"request"}\n`);
  }
}
