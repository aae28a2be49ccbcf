import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { CHAT, chatBody, post, streamChunks, UPSTREAM_CHAT } from '../../helpers/routing-harness.js';

const KEY = 'sk-caller-key-1234567890';
// Above a second: undici's own timers are coarse there (they fired about 0.5 s late).
const FIRST_BYTE_MS = 1500;
const IDLE_MS = 1500;
const SLACK_MS = 200;

/** routing.defaults' first_byte_timeout and idle_timeout fire on time, as values set in a routing config do. */
describe('routing.defaults deadlines are exact', () => {
  let a: FakeUpstream;
  let gw: TestGateway;
  const headers = { 'x-gateway-provider': 'openai', 'x-gateway-api-key': KEY };

  beforeAll(async () => {
    a = await new FakeUpstream().start();
    gw = await startGateway({
      providers: { openai: { baseUrl: `${a.url}/v1` } },
      routing: { defaults: { first_byte_timeout: FIRST_BYTE_MS, idle_timeout: `${IDLE_MS}ms` } },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await a?.stop();
  });

  /** An upstream that never answers, noting when the request reached it (the deadline's start, give or take the send). */
  let arrived = 0;
  const hang = () => a.on(UPSTREAM_CHAT, () => void (arrived = performance.now()));

  it('first_byte_timeout: a hanging upstream gets its 504 when the default says, not later', async () => {
    hang();
    const res = await post(gw.url, CHAT, chatBody(), headers);
    const took = performance.now() - arrived;
    expect(res.status).toBe(504);
    expect(res.json.error).toMatchObject({ type: 'timeout_error', code: 'request_timeout' });
    expect(took).toBeGreaterThanOrEqual(FIRST_BYTE_MS - 50);
    expect(took).toBeLessThan(FIRST_BYTE_MS + SLACK_MS);
  });

  it('first_byte_timeout applies to the targets of a routing config that sets none', async () => {
    hang();
    const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-config': JSON.stringify({ provider: 'openai' }), 'x-gateway-api-key': KEY });
    const took = performance.now() - arrived;
    expect(res.status).toBe(504);
    expect(took).toBeLessThan(FIRST_BYTE_MS + SLACK_MS);
  });

  it('idle_timeout: a stream that stalls ends with the error event when the default says', async () => {
    let firstSent = 0;
    a.on(UPSTREAM_CHAT, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(streamChunks(['Hel'], { done: false })[0]);
      firstSent = performance.now();
      // then nothing: the upstream stalls
    });
    const res = await post(gw.url, CHAT, chatBody({ stream: true }), headers);
    const took = performance.now() - firstSent;
    expect(res.status).toBe(200);
    expect(res.done).toBe(false);
    expect(res.events.at(-1)).toMatchObject({ status: 'failure', error: { code: 'request_timeout' } });
    expect(took).toBeGreaterThanOrEqual(IDLE_MS - 50);
    expect(took).toBeLessThan(IDLE_MS + SLACK_MS);
  });
});
