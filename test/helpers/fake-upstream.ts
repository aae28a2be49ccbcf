import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoopbackFake } from './loopback-server.js';

/** One request the fake received, for asserting what the gateway sent upstream. */
export interface ReceivedRequest {
  method: string;
  path: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  json(): any;
}

/** What the fake answers for a route: JSON, SSE chunks, raw bytes, or a fault. */
export type FakeReply =
  | { json: unknown; status?: number; headers?: Record<string, string> }
  | { chunks: string[]; status?: number; headers?: Record<string, string>; delayMs?: number; end?: 'close' | 'destroy' | 'hang' }
  | { raw: Buffer | string; status?: number; headers?: Record<string, string> }
  | { fault: 'reset' | 'hang' | 'slow-headers'; delayMs?: number }
  | ((req: ReceivedRequest, res: ServerResponse) => void | Promise<void>);

/**
 * A fake upstream on a free loopback port: routes are "METHOD /path" -> reply (or a list of
 * replies used in turn, the last one repeating). It records every request it received.
 */
export class FakeUpstream extends LoopbackFake {
  readonly requests: ReceivedRequest[] = [];
  private readonly routes = new Map<string, FakeReply[]>();
  private readonly hits = new Map<string, number>();

  on(route: string, ...replies: FakeReply[]): this {
    this.routes.set(route, replies);
    this.hits.set(route, 0);
    return this;
  }

  /** Requests received for "METHOD /path". */
  received(route?: string): ReceivedRequest[] {
    if (!route) return this.requests;
    const [method, path] = route.split(' ');
    return this.requests.filter((r) => r.method === method && r.path === path);
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of req) chunks.push(chunk as Buffer);
    } catch {
      return; // the sender cut the request off (an upload the gateway aborted): nothing was received
    }
    const body = Buffer.concat(chunks);
    const url = req.url ?? '/';
    const path = url.split('?')[0]!;
    const received: ReceivedRequest = {
      method: req.method ?? 'GET',
      path,
      url,
      headers: req.headers,
      body,
      json: () => JSON.parse(body.toString('utf8')),
    };
    this.requests.push(received);
    const key = `${received.method} ${path}`;
    const replies = this.routes.get(key);
    if (!replies) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `fake upstream has no route ${key}`, type: 'invalid_request_error', code: 'unknown_url' } }));
      return;
    }
    const n = this.hits.get(key)!;
    this.hits.set(key, n + 1);
    const reply = replies[Math.min(n, replies.length - 1)]!;
    await this.reply(reply, received, res);
  }

  private async reply(reply: FakeReply, received: ReceivedRequest, res: ServerResponse): Promise<void> {
    if (typeof reply === 'function') return reply(received, res);
    if ('fault' in reply) {
      if (reply.fault === 'reset') res.socket?.destroy();
      if (reply.fault === 'slow-headers') {
        await sleep(reply.delayMs ?? 1000);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      }
      return; // hang: never answers
    }
    if ('json' in reply) {
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.json));
      return;
    }
    if ('raw' in reply) {
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/octet-stream', ...reply.headers });
      res.end(reply.raw);
      return;
    }
    res.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream', ...reply.headers });
    res.flushHeaders();
    for (const chunk of reply.chunks) {
      if (reply.delayMs) await sleep(reply.delayMs);
      if (res.destroyed) return;
      res.write(chunk);
    }
    if (reply.end === 'destroy') res.socket?.destroy();
    else if (reply.end === 'hang') return;
    else res.end();
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** SSE text of OpenAI chunks, one `data:` event each, plus [DONE]. */
export function sseChunks(chunks: unknown[], done = true): string[] {
  const out = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`);
  if (done) out.push('data: [DONE]\n\n');
  return out;
}
