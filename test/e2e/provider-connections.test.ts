import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import type { ServerResponse } from 'node:http';
import { FakeUpstream } from '../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { providerPools } from '../../src/features/models/routing/provider-pools.js';
import { buildConfig } from '../../src/kernel/config/load-config.js';

/**
 * providers.<id>.connections is the most upstream connections that provider's requests open
 * (per origin): more calls at once than that wait for a free connection; another provider's
 * calls to the same origin go through the shared pool and are not held back.
 */

const KEY = 'sk-connections-test-0123456789';

describe('providers.<id>.connections', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;
  /** Answers held open until released, and the upstream connections seen. */
  const held: ServerResponse[] = [];
  const sockets = new Set<unknown>();
  let inFlight = 0;
  let mostInFlight = 0;

  const answer = (res: ServerResponse) => {
    inFlight--;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'c1',
        object: 'chat.completion',
        created: 1,
        model: 'm',
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }),
    );
  };

  beforeAll(async () => {
    const hold = (_req: unknown, res: ServerResponse) => {
      sockets.add(res.socket);
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      held.push(res);
    };
    upstream = await new FakeUpstream().on('POST /v1/chat/completions', hold).start();
    gw = await startGateway({
      providers: { openai: { baseUrl: `${upstream.url}/v1`, connections: 2 }, deepseek: { baseUrl: `${upstream.url}/v1` } },
    });
  });
  afterAll(async () => {
    for (const res of held.splice(0)) if (!res.writableEnded) answer(res);
    await gw?.close();
    await upstream?.stop();
  });

  const call = (provider: string) =>
    request(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-provider': provider, authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ model: provider === 'openai' ? 'gpt-4o-mini' : 'deepseek-chat', messages: [{ role: 'user', content: 'hi' }] }),
    }).then(async (res) => ({ status: res.statusCode, body: await res.body.text() }));

  async function until(condition: () => boolean): Promise<void> {
    for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(condition()).toBe(true);
  }

  it('reads the setting into a pool per provider', () => {
    const config = buildConfig({ providers: { openai: { connections: 3 }, anthropic: { baseUrl: 'http://127.0.0.1:1' } } }, 't', { env: {} });
    expect(providerPools(config)).toEqual({ openai: 3 });
    expect(providerPools(buildConfig({}, 't', { env: {} }))).toBeUndefined();
  });

  it('opens at most that many connections; the other calls wait for one and are answered', async () => {
    const calls = [call('openai'), call('openai'), call('openai'), call('openai'), call('openai')];
    await until(() => held.length === 2);
    // Give the gateway time to open more connections if it would.
    await new Promise((r) => setTimeout(r, 150));
    expect(held.length).toBe(2);
    expect(sockets.size).toBe(2);
    // Another provider at the same origin is not held back by openai's pool.
    const other = call('deepseek');
    await until(() => held.length === 3);
    answer(held[2]!);
    expect((await other).status).toBe(200);
    // Released one by one, the waiting calls go out on the same two connections.
    for (let served = 0; served < 5; served++) {
      await until(() => held.filter((r) => !r.writableEnded).length > 0);
      answer(held.find((r) => !r.writableEnded)!);
    }
    const results = await Promise.all(calls);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(held.length).toBe(6);
    expect(mostInFlight).toBe(3);
    expect(sockets.size).toBe(3);
  });
});
