import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, type ExchangeRequest } from '../../../../src/features/mcp/relay/upstream-exchange.js';
import { CallerSignal } from '../../../../src/kernel/engine/caller-signal.js';

let server: Server;
let origin: string;
const agent = new Agent({ keepAliveTimeout: 1000 });
const streams = new Set<ServerResponse>();
let closedStreams = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.url === '/whole') {
        res.writeHead(200, { 'content-type': 'application/json', 'x-seen': req.headers['x-test'] ?? '' });
        // Three writes: the answer comes in pieces.
        res.write('{"echo":');
        setTimeout(() => res.write(JSON.stringify(body)), 5);
        setTimeout(() => res.end('}'), 10);
      } else if (req.url === '/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: one\n\n');
        setTimeout(() => res.end('data: two\n\n'), 10);
      } else if (req.url === '/endless') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: first\n\n');
        streams.add(res);
        res.on('close', () => closedStreams++);
      } else if (req.url === '/broken') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"partial":');
        setTimeout(() => res.destroy(), 10);
      } else if (req.url === '/slow') {
        setTimeout(() => res.end('{}'), 2000);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of streams) res.destroy();
  await agent.close();
  await new Promise((r) => server.close(r));
});

const request = (path: string, over: Partial<ExchangeRequest> = {}): ExchangeRequest => ({
  origin,
  path,
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-test': 'yes' },
  body: Buffer.from('hello'),
  headersTimeout: 5000,
  ...over,
});

describe('one exchange with a tool server', () => {
  it('gets a whole answer in one buffer, with its status and headers', async () => {
    const answer = await exchange(agent, request('/whole'));
    expect(answer.status).toBe(200);
    expect(answer.headers['x-seen']).toBe('yes');
    expect(answer.stream).toBeUndefined();
    expect(answer.broken).toBeUndefined();
    expect(JSON.parse(answer.body!.toString('utf8'))).toEqual({ echo: 'hello' });
  });

  it('passes an event stream on as it comes', async () => {
    const answer = await exchange(agent, request('/stream'));
    expect(answer.headers['content-type']).toBe('text/event-stream');
    let text = '';
    for await (const chunk of answer.stream!) text += String(chunk);
    expect(text).toBe('data: one\n\ndata: two\n\n');
  });

  it('says when the server broke off a whole answer', async () => {
    const answer = await exchange(agent, request('/broken'));
    expect(answer.status).toBe(200);
    expect(answer.broken).toBe(true);
  });

  it('rejects when no answer came (nothing listens)', async () => {
    await expect(exchange(agent, request('/whole', { origin: 'http://127.0.0.1:1' }))).rejects.toThrow();
  });

  it('ends the request when the caller goes away before the answer, or before it was sent', async () => {
    const signal = new CallerSignal();
    const pending = exchange(agent, request('/slow', { signal }));
    setTimeout(() => signal.abort(), 20);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    const gone = new CallerSignal();
    gone.abort();
    await expect(exchange(agent, request('/slow', { signal: gone }))).rejects.toMatchObject({ name: 'AbortError' });
    const controller = new AbortController();
    const viaAbortSignal = exchange(agent, request('/slow', { signal: controller.signal }));
    controller.abort();
    await expect(viaAbortSignal).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('ends an event stream with the server when the stream is destroyed', async () => {
    const answer = await exchange(agent, request('/endless'));
    const first = await new Promise<string>((r) => answer.stream!.once('data', (c) => r(String(c))));
    expect(first).toBe('data: first\n\n');
    const before = closedStreams;
    answer.stream!.destroy();
    for (let i = 0; i < 100 && closedStreams === before; i++) await new Promise((r) => setTimeout(r, 10));
    expect(closedStreams).toBe(before + 1);
  });
});
