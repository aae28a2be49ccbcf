import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeUpstream, sseChunks } from '../helpers/fake-upstream.js';
import { buildGateway, freePort, spawnGateway, waitForHealth, type GatewayProcess } from '../helpers/built-gateway.js';

const chunk = (content: string) => ({
  id: 'chatcmpl-drain',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'gpt-4o-mini',
  choices: [{ index: 0, delta: { content }, finish_reason: null }],
});

/** SIGTERM as an orchestrator sends it, to the built gateway process. */
describe('graceful drain on SIGTERM (the built process)', { timeout: 90_000 }, () => {
  let dir: string;
  let upstream: FakeUpstream;
  let proc: GatewayProcess | undefined;
  let release!: () => void;

  beforeAll(async () => {
    buildGateway();
    dir = mkdtempSync(join(tmpdir(), 'gw-drain-'));
    const released = new Promise<void>((resolve) => (release = resolve));
    upstream = await new FakeUpstream()
      .on('POST /v1/chat/completions', async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(sseChunks([chunk('Hello')], false)[0]);
        await released; // the rest of the answer comes after SIGTERM
        for (const text of sseChunks([chunk(', world')])) res.write(text);
        res.end();
      })
      .start();
  }, 240_000);
  afterAll(async () => {
    proc?.kill();
    await upstream?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finishes the in-flight stream with [DONE], refuses new connections, and exits 0', async () => {
    const port = await freePort();
    const config = join(dir, 'gateway.yaml');
    writeFileSync(config, `server:\n  host: 127.0.0.1\n  shutdownGracePeriod: 30s\nproviders:\n  openai:\n    baseUrl: ${upstream.url}/v1\n`);
    proc = spawnGateway(['--config', config], { env: { GATEWAY_PORT: String(port), GATEWAY_DATA_DIR: join(dir, 'data') } });
    const url = `http://127.0.0.1:${port}`;
    await waitForHealth(url, proc);

    // A streamed chat completion, on its own connection.
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], stream: true });
    let text = '';
    let response!: IncomingMessage;
    const streamed = new Promise<void>((resolve, reject) => {
      const req = httpRequest(`${url}/v1/chat/completions`, {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'x-gateway-provider': 'openai', 'x-gateway-api-key': 'sk-drain-test-00001' },
      });
      req.on('response', (res) => {
        response = res;
        res.on('data', (d: Buffer) => (text += d.toString('utf8')));
        res.on('end', resolve);
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
    while (!text.includes('Hello')) await new Promise((r) => setTimeout(r, 10));

    proc.child.kill('SIGTERM');
    // The listener closes: new connections are refused while the stream is still open.
    let refused = '';
    while (refused !== 'ECONNREFUSED') {
      refused = await fetch(`${url}/health`).then(
        () => 'answered',
        (err) => String((err as { cause?: { code?: string } }).cause?.code),
      );
    }
    expect(text).not.toContain('[DONE]');

    release();
    await streamed;
    expect(response.statusCode).toBe(200);
    const events = text.split('\n\n').filter(Boolean);
    expect(events.map((e) => (e === 'data: [DONE]' ? '[DONE]' : JSON.parse(e.slice(6)).choices[0].delta.content))).toEqual(['Hello', ', world', '[DONE]']);

    const { code, signal } = await proc.exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });

    // Its log: the request line carries the id the caller saw; then draining.
    const records = proc
      .stdout()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(records.find((r) => r.msg === 'gateway listening')).toMatchObject({ url: `http://127.0.0.1:${port}` });
    expect(records.find((r) => r.msg === 'draining')).toMatchObject({ signal: 'SIGTERM' });
    expect(records.find((r) => r.msg === 'request')).toMatchObject({
      requestId: response.headers['x-gateway-request-id'],
      route: 'POST /v1/chat/completions',
      provider: 'openai',
      status: 200,
    });
    expect(proc.stdout()).not.toContain('sk-drain-test-00001');
  });
});
