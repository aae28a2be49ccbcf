import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeUpstream } from '../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { answers, CHAT, chatBody, post, UPSTREAM_CHAT } from '../helpers/routing-harness.js';

/**
 * CONTRACT section 4: a 429 always comes with Retry-After, a plugin stage's `ctx.reject(429)`
 * too: the seconds it passes as `retryAfter`, else 1.
 */
describe('a plugin stage that refuses with ctx.reject(429)', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;
  let dir: string;

  beforeAll(async () => {
    upstream = await new FakeUpstream().on(UPSTREAM_CHAT, answers('ok')).start();
    dir = mkdtempSync(join(tmpdir(), 'gw-reject-429-'));
    writeFileSync(
      join(dir, 'slow-down.mjs'),
      `export default {
         kind: 'stage',
         name: 'slow-down',
         description: 'Refuses requests that carry x-slow-down with 429 (x-slow-down: the seconds to wait, or "default").',
         schema: { type: 'object', additionalProperties: false },
         create() {
           return async (ctx, next) => {
             const wait = ctx.headers['x-slow-down'];
             if (wait === 'default') ctx.reject(429, { message: 'Slow down.' });
             else if (wait !== undefined) ctx.reject(429, { message: 'Slow down.', retryAfter: Number(wait) });
             else if (ctx.headers['x-busy'] !== undefined) ctx.reject(503, { message: 'Busy.' });
             await next();
           };
         },
       };`,
    );
    writeFileSync(join(dir, 'chat.yaml'), 'name: chat\nextends: chat\ninsert:\n  - after: authenticate\n    stages: [slow-down]\n');
    gw = await startGateway({ plugins: [join(dir, 'slow-down.mjs')], pipelines: { dir }, providers: { openai: { baseUrl: `${upstream.url}/v1` } } });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const chat = (headers: Record<string, string> = {}) => post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai', 'x-gateway-api-key': 'sk-reject-429-0001', ...headers });

  it('answers 429 with Retry-After: 1 when the plugin names no wait, and the contract body', async () => {
    const res = await chat({ 'x-slow-down': 'default' });
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.json).toEqual({
      status: 'failure',
      message: 'Slow down.',
      error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'Slow down.', param: null, provider: null },
    });
    expect(upstream.received(UPSTREAM_CHAT)).toHaveLength(0);
  });

  it('takes the seconds the plugin passes as retryAfter (whole seconds, rounded up)', async () => {
    expect((await chat({ 'x-slow-down': '30' })).headers['retry-after']).toBe('30');
    expect((await chat({ 'x-slow-down': '2.2' })).headers['retry-after']).toBe('3');
    // A wait that is no number of seconds falls back to 1.
    expect((await chat({ 'x-slow-down': 'soon' })).headers['retry-after']).toBe('1');
  });

  it('other statuses get no Retry-After unless the plugin asks; the request goes on without the header', async () => {
    const busy = await chat({ 'x-busy': '1' });
    expect(busy.status).toBe(503);
    expect(busy.headers['retry-after']).toBeUndefined();
    const ok = await chat();
    expect(ok.status).toBe(200);
    expect(ok.headers['retry-after']).toBeUndefined();
  });
});
