import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamClient } from '../../../../src/kernel/upstream/upstream-client.js';

describe('UpstreamClient.send', () => {
  let server: Server;
  let origin: string;
  const seen: Array<{ method: string; url: string; host: string; body: string }> = [];
  const client = new UpstreamClient();

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, host: req.headers.host!, body });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await client.close();
    await new Promise((resolve) => server.close(resolve));
  });

  async function send(url: string, method = 'POST', body: string | null = '{"a":1}') {
    const res = await client.send({ method, url, headers: { 'content-type': 'application/json' }, body });
    expect(res.statusCode).toBe(200);
    expect(await res.body.json()).toEqual({ ok: true });
    return seen.at(-1)!;
  }

  it('sends the path and query of the address as they are, with the body', async () => {
    const got = await send(`${origin}/v1/chat/completions?api-version=2024-10-21&x=a%20b`);
    expect(got).toMatchObject({ method: 'POST', url: '/v1/chat/completions?api-version=2024-10-21&x=a%20b', body: '{"a":1}' });
    expect(got.host).toBe(origin.slice('http://'.length));
  });

  it('parses an unusual address as a URL parser would: no fragment sent, a space encoded, an empty path made /', async () => {
    expect((await send(`${origin}/v1/files#part`, 'GET', null)).url).toBe('/v1/files');
    expect((await send(`${origin}/v1/a b`, 'GET', null)).url).toBe('/v1/a%20b');
    expect((await send(origin, 'GET', null)).url).toBe('/');
  });

  it('reuses one keep-alive connection for calls in a row', async () => {
    const ports = new Set<number>();
    server.on('connection', (socket) => ports.add(socket.remotePort!));
    for (let i = 0; i < 5; i++) await send(`${origin}/v1/embeddings`);
    expect(ports.size).toBeLessThanOrEqual(1);
  });
});
