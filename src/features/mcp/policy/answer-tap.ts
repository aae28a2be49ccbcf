import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { StringDecoder } from 'node:string_decoder';

type Json = Record<string, unknown>;

/**
 * What a stage wants to see of the answer: `wants` picks the messages (cheap, synchronous);
 * `rewrite` gives the message to write instead, or undefined to leave it as it is (its bytes
 * then pass untouched).
 */
export interface MessageTap {
  wants(message: Json): boolean;
  rewrite(message: Json): Promise<Json | undefined>;
}

type Mode = 'json' | 'sse' | 'pass';

function headerObject(headers: unknown): OutgoingHttpHeaders | undefined {
  if (!headers) return undefined;
  if (!Array.isArray(headers)) return headers as OutgoingHttpHeaders;
  // [name, value, name, value] or [[name, value], ...]
  const out: OutgoingHttpHeaders = {};
  if (Array.isArray(headers[0])) for (const [k, v] of headers as [string, string][]) out[k] = v;
  else for (let i = 0; i + 1 < headers.length; i += 2) out[String(headers[i])] = headers[i + 1] as string;
  return out;
}

function withoutLength(headers: OutgoingHttpHeaders | undefined): OutgoingHttpHeaders | undefined {
  if (!headers) return headers;
  const out: OutgoingHttpHeaders = {};
  for (const key of Object.keys(headers)) if (key.toLowerCase() !== 'content-length') out[key] = headers[key];
  return out;
}

function modeOf(contentType: unknown): Mode {
  const type = String(contentType ?? '').toLowerCase();
  if (type.includes('application/json')) return 'json';
  if (type.includes('text/event-stream')) return 'sse';
  return 'pass';
}

function contentTypeIn(headers: OutgoingHttpHeaders | undefined): unknown {
  if (!headers) return undefined;
  for (const key of Object.keys(headers)) if (key.toLowerCase() === 'content-type') return headers[key];
  return undefined;
}

/** The JSON-RPC message an SSE event carries (its data lines), if any. */
function eventMessage(event: string): Json | undefined {
  const data = event
    .split('\n')
    .filter((l) => l.startsWith('data:'))
    .map((l) => l.slice(l.startsWith('data: ') ? 6 : 5));
  if (!data.length) return undefined;
  try {
    const message: unknown = JSON.parse(data.join('\n'));
    return message && typeof message === 'object' && !Array.isArray(message) ? (message as Json) : undefined;
  } catch {
    return undefined;
  }
}

/** The event with its data replaced by `message` (its other fields kept). */
function withMessage(event: string, message: Json): string {
  const kept = event.split('\n').filter((l) => l !== '' && !l.startsWith('data:'));
  return `${[...kept, `data: ${JSON.stringify(message)}`].join('\n')}\n\n`;
}

/** A JSON answer body (one message or a batch) with the messages to change rewritten; undefined when none changed. */
async function rewriteJson(bytes: Buffer, tap: MessageTap): Promise<Buffer | undefined> {
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  const list = Array.isArray(body) ? body : [body];
  let changed = false;
  const out = await Promise.all(
    list.map(async (m) => {
      if (!m || typeof m !== 'object' || Array.isArray(m) || !tap.wants(m as Json)) return m;
      const next = await tap.rewrite(m as Json);
      if (!next) return m;
      changed = true;
      return next;
    }),
  );
  if (!changed) return undefined;
  return Buffer.from(JSON.stringify(Array.isArray(body) ? out : out[0]), 'utf8');
}

/**
 * Lets a stage see and change the JSON-RPC messages the MCP transport writes on this answer,
 * whatever the transport (it writes a JSON body or an event stream on the response): a JSON
 * answer is held until it ends, parsed, and written with the changed messages (and a new
 * Content-Length); an event stream passes event by event, in order, each written as it comes
 * (progress, and requests from the server to the client, are not held back or delayed) unless
 * an earlier event is still being rewritten; an event whose message the tap wants is written
 * once rewritten. Anything else passes untouched. Messages left alone keep their bytes.
 */
export function tapJsonRpcAnswer(res: ServerResponse, tap: MessageTap, onFailure: (err: unknown) => void): void {
  type Fn = (...args: unknown[]) => unknown;
  const saved = { writeHead: res.writeHead as Fn, write: res.write as Fn, end: res.end as Fn, flushHeaders: res.flushHeaders as Fn };
  const original = {
    writeHead: (...args: unknown[]) => saved.writeHead.apply(res, args),
    write: (...args: unknown[]) => saved.write.apply(res, args),
    end: (...args: unknown[]) => saved.end.apply(res, args),
    flushHeaders: () => saved.flushHeaders.apply(res, []),
  };
  let mode: Mode | undefined;
  let head: { status: number; reason?: string; headers?: OutgoingHttpHeaders } | undefined;
  const held: Buffer[] = [];
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let queue: Promise<void> = Promise.resolve();
  /** Events waiting in the queue (an event is written at once only when none is). */
  let busy = 0;

  const decide = (headers?: OutgoingHttpHeaders): Mode => {
    mode ??= modeOf(contentTypeIn(headers) ?? res.getHeader('content-type'));
    return mode;
  };
  const toBuffer = (chunk: unknown, encoding?: unknown): Buffer | undefined => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return undefined;
    if (typeof chunk === 'string') return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
    return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
  };
  const enqueue = (work: () => Promise<void>): void => {
    queue = queue.then(work).catch((err) => {
      onFailure(err);
      if (!res.destroyed) res.destroy(err as Error);
    });
  };
  const streamText = (text: string): void => {
    pending += text.replace(/\r\n/g, '\n');
    let at: number;
    while ((at = pending.indexOf('\n\n')) >= 0) {
      const event = pending.slice(0, at + 2);
      pending = pending.slice(at + 2);
      const message = eventMessage(event);
      const wanted = message !== undefined && tap.wants(message);
      if (!wanted && busy === 0) {
        if (!res.destroyed) original.write(event);
        continue;
      }
      busy++;
      enqueue(async () => {
        try {
          const changed = wanted ? await tap.rewrite(message) : undefined;
          if (!res.destroyed) original.write(changed ? withMessage(event, changed) : event);
        } finally {
          busy--;
        }
      });
    }
  };

  res.writeHead = function writeHead(this: ServerResponse, status: number, reason?: unknown, headers?: unknown) {
    const hasReason = typeof reason === 'string';
    const given = headerObject(hasReason ? headers : reason);
    const m = decide(given);
    if (m === 'json') {
      head = { status, reason: hasReason ? (reason as string) : undefined, headers: given };
      return res;
    }
    const out = m === 'sse' ? withoutLength(given) : given;
    if (m === 'sse') res.removeHeader('content-length');
    return hasReason ? original.writeHead(status, reason as string, out) : original.writeHead(status, out);
  } as ServerResponse['writeHead'];

  res.flushHeaders = function flushHeaders() {
    if (decide() !== 'json') original.flushHeaders();
  };

  res.write = function write(this: ServerResponse, chunk: unknown, encoding?: unknown, cb?: unknown) {
    const m = decide();
    if (m === 'pass') return original.write(chunk, encoding, cb) as boolean;
    const bytes = toBuffer(chunk, encoding);
    const done = typeof encoding === 'function' ? encoding : cb;
    if (bytes) {
      if (m === 'json') held.push(bytes);
      else streamText(decoder.write(bytes));
    }
    if (typeof done === 'function') queueMicrotask(() => (done as () => void)());
    return true;
  } as ServerResponse['write'];

  res.end = function end(this: ServerResponse, chunk?: unknown, encoding?: unknown, cb?: unknown) {
    const m = decide();
    if (m === 'pass') return original.end(chunk, encoding, cb) as ServerResponse;
    const bytes = toBuffer(chunk, encoding);
    const done = [chunk, encoding, cb].find((x) => typeof x === 'function') as (() => void) | undefined;
    if (m === 'json') {
      if (bytes) held.push(bytes);
      enqueue(async () => {
        const whole = Buffer.concat(held);
        const body = (await rewriteJson(whole, tap)) ?? whole;
        if (res.destroyed) return;
        const headers = { ...withoutLength(head?.headers), 'content-length': String(body.length) };
        res.removeHeader('content-length');
        if (!res.headersSent) {
          if (head?.reason !== undefined) original.writeHead(head.status, head.reason, headers);
          else original.writeHead(head?.status ?? res.statusCode, headers);
        }
        original.end(body, done);
      });
    } else {
      if (bytes) streamText(decoder.write(bytes));
      const rest = decoder.end();
      if (rest) streamText(rest);
      const finish = () => {
        if (pending && !res.destroyed) original.write(pending);
        pending = '';
        original.end(done);
      };
      if (busy === 0) finish();
      else enqueue(async () => finish());
    }
    return res;
  } as ServerResponse['end'];
}
