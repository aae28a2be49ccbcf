import type { Logger } from 'pino';
import { redactRepeatedLogText } from '../errors/redact.js';
import { FixedLines, quote } from '../observability/fixed-lines.js';

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
  /** Members features add (the LINE_FIELDS slot): `,"name":<json>...`, already masked. */
  fields?: string;
}

/**
 * The per-request log line, written with a fixed serializer: the same JSON line pino writes
 * for `logger.info(fields, 'request')` (level, time, the logger's bindings, the fields, msg),
 * straight to the logger's destination. None of its fields can hold a secret (ids, the route
 * pattern, a status, a provider id, numbers), so it skips the field masking and the line
 * redactor; the caller's user name goes through the redactor, and the fields features add come
 * masked by them. On
 * pino's own destinations the lines of one turn of the event loop are handed over together
 * (and before any other log line, so the order of lines is kept).
 */
export class RequestLog {
  private readonly lines: FixedLines;

  constructor(private readonly logger: Logger) {
    this.lines = new FixedLines(logger);
  }

  write(level: 'info' | 'debug', line: RequestLine): void {
    const lines = this.lines;
    if (!lines.enabled(level)) return;
    if (!lines.fixed) {
      const { fields, ...rest } = line;
      this.logger[level](fields ? { ...rest, ...(JSON.parse(`{${fields.slice(1)}}`) as object) } : rest, 'request');
      return;
    }
    let text = `${lines.head(level)},"requestId":${JSON.stringify(line.requestId)},"method":${quote(line.method)},"route":${quote(line.route)},"status":${line.status},"provider":${quote(line.provider)},"retries":${line.retries},"ms":${line.ms}`;
    if (line.user !== undefined) text += `,"user":${redactRepeatedLogText(JSON.stringify(line.user))}`;
    if (line.error !== undefined) text += `,"error":${quote(line.error)}`;
    if (line.clientGone) text += ',"clientGone":true';
    if (line.fields) text += line.fields;
    lines.end(text, 'request');
  }
}
