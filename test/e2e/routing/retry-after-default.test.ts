import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { answers, answerText, CHAT, chatBody, post, UPSTREAM_CHAT, type Answer } from '../../helpers/routing-harness.js';
import type { ReceivedRequest } from '../../helpers/fake-upstream.js';

const KEY = 'sk-caller-key-1234567890';

/** The contract: retries back off exponentially with jitter, honouring Retry-After, with no flag needed. */
describe('retries honour Retry-After by default', () => {
  let a: FakeUpstream;
  let gw: TestGateway;
  let stageGw: TestGateway;
  let dir: string;
  let arrivals: number[];
  const header = (config: Record<string, unknown>) => ({ 'x-gateway-config': JSON.stringify({ provider: 'openai', ...config }), 'x-gateway-api-key': KEY });
  /** A 429 asking for 1 s, then an answer; each arrival's time noted. */
  const busyThenFine = () => {
    a.on(
      UPSTREAM_CHAT,
      (_req: ReceivedRequest, res: ServerResponse) => {
        arrivals.push(performance.now());
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end(JSON.stringify({ error: { message: 'wait a second' } }));
      },
      (req: ReceivedRequest, res: ServerResponse) => {
        arrivals.push(performance.now());
        (answers('after the wait') as (r: ReceivedRequest, s: ServerResponse) => void)(req, res);
      },
    );
  };
  const gap = (res: Answer) => {
    expect(res.status).toBe(200);
    expect(answerText(res)).toBe('after the wait');
    expect(arrivals).toHaveLength(2);
    return arrivals[1]! - arrivals[0]!;
  };

  beforeAll(async () => {
    a = await new FakeUpstream().start();
    gw = await startGateway({ providers: { openai: { baseUrl: `${a.url}/v1` } } });
    // The retry stage's own settings (requests without a routing config): attempts only.
    dir = mkdtempSync(join(tmpdir(), 'gw-pipelines-'));
    writeFileSync(join(dir, 'provider.yaml'), 'name: provider\nextends: provider\nconfigure:\n  retry: { attempts: 1 }\n');
    stageGw = await startGateway({ providers: { openai: { baseUrl: `${a.url}/v1` } }, pipelines: { dir } });
  });
  afterAll(async () => {
    await Promise.all([gw?.close(), stageGw?.close()]);
    await a?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    a.requests.length = 0;
    arrivals = [];
    busyThenFine();
  });

  it('a routing config retry without use_retry_after_header waits what Retry-After asks', async () => {
    const res = await post(gw.url, CHAT, chatBody(), header({ retry: { attempts: 1 } }));
    expect(gap(res)).toBeGreaterThanOrEqual(950);
    expect(res.headers['x-gateway-retry-count']).toBe('1');
  });

  it('an inherited retry (set on the config root) waits for Retry-After too', async () => {
    const res = await post(gw.url, CHAT, chatBody(), {
      'x-gateway-config': JSON.stringify({ retry: { attempts: 1 }, targets: [{ provider: 'openai' }] }),
      'x-gateway-api-key': KEY,
    });
    expect(gap(res)).toBeGreaterThanOrEqual(950);
  });

  it('the retry stage’s own default (no routing config) waits for Retry-After', async () => {
    const res = await post(stageGw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai', 'x-gateway-api-key': KEY });
    expect(gap(res)).toBeGreaterThanOrEqual(950);
  });

  it('use_retry_after_header: false backs off instead (100 ms steps, not the second asked)', async () => {
    const res = await post(gw.url, CHAT, chatBody(), header({ retry: { attempts: 1, use_retry_after_header: false } }));
    expect(gap(res)).toBeLessThan(700);
  });

  it('keeps the caps: a Retry-After past the deadline is not waited for', async () => {
    a.on(UPSTREAM_CHAT, { status: 429, headers: { 'retry-after': '30' }, json: { error: { message: 'much later' } } });
    const started = performance.now();
    const res = await post(gw.url, CHAT, chatBody(), header({ request_timeout: 2000, retry: { attempts: 3 } }));
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('30');
    expect(res.headers['x-gateway-retry-count']).toBe('0');
    expect(performance.now() - started).toBeLessThan(1500);
    expect(a.received(UPSTREAM_CHAT)).toHaveLength(1);
  });
});
