import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { answers, CHAT, chatBody, chatCompletion, post, UPSTREAM_CHAT } from '../../helpers/routing-harness.js';

const KEY = 'sk-caller-key-1234567890';

/** What a caller's routing config may ask for, and what the gateway's answers tell it. */
describe('caller configs are bounded, and answers tell a caller no more than its own', () => {
  let a: FakeUpstream;
  let gw: TestGateway;
  const calls = () => a.received(UPSTREAM_CHAT).length;
  const header = (config: Record<string, unknown>) => ({ 'x-gateway-config': JSON.stringify({ provider: 'openai', ...config }), 'x-gateway-api-key': KEY });
  const say = (content: string) => chatBody({ messages: [{ role: 'user', content }] });

  beforeAll(async () => {
    a = await new FakeUpstream().start();
    gw = await startGateway({
      providers: { openai: { baseUrl: `${a.url}/v1` } },
      configs: { 'secret-team-config': { provider: 'openai' }, 'other-internal-name': { provider: 'openai' } },
      guardrails: {
        'json-only': { checks: [{ type: 'jsonParse' }] },
        'json-answer': { checks: [{ type: 'jsonSchema', schema: { type: 'object', required: ['answer'] } }] },
      },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await a?.stop();
  });
  beforeEach(() => {
    a.requests.length = 0;
    a.on(UPSTREAM_CHAT, answers('fine answer'));
  });

  it('refuses accept-encoding (and te) in forward_headers with a 400 naming the entry, sending nothing', async () => {
    // An upstream that compresses when asked: forwarded, the gzip bytes would reach the client with no content-encoding.
    a.on(UPSTREAM_CHAT, (req, res) => {
      const body = JSON.stringify(chatCompletion('zipped'));
      if (String(req.headers['accept-encoding'] ?? '').includes('gzip')) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(gzipSync(body));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
      }
    });
    for (const [names, entry] of [
      [['accept-encoding'], 'forward_headers[0]'],
      [['x-trace', 'Accept-Encoding'], 'forward_headers[1]'],
      [['TE'], 'forward_headers[0]'],
    ] as const) {
      const res = await post(gw.url, CHAT, chatBody(), { ...header({ forward_headers: names }), 'accept-encoding': 'gzip', te: 'trailers' });
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ type: 'invalid_request_error', code: 'missing_required_parameter', param: 'x-gateway-config' });
      expect(res.json.error.message).toMatch(
        new RegExp(`^x-gateway-config: ${entry.replace(/[[\]]/g, '\\$&')}: (accept-encoding|te) is set by the gateway or describes one connection`),
      );
    }
    expect(calls()).toBe(0);
  });

  it('refuses accept-encoding in forward_headers of an operator config at start-up', async () => {
    const err = await startGateway({ configs: { zip: { provider: 'openai', forward_headers: ['accept-encoding'] } } }).catch((e) => e);
    expect(err.problems).toEqual([expect.stringMatching(/^configs\.zip\.forward_headers\[0\]: accept-encoding is set by the gateway/)]);
  });

  it('an unknown config name is a 400 that lists none of the operator’s config names', async () => {
    const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-config': 'nope', 'x-gateway-api-key': KEY, 'x-gateway-provider': 'openai' });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'missing_required_parameter', param: 'x-gateway-config' });
    expect(res.json.error.message).toBe('x-gateway-config: no config named "nope"; send a JSON object or the name of a config.');
    expect(res.text).not.toContain('secret-team-config');
    expect(res.text).not.toContain('other-internal-name');
    expect(calls()).toBe(0);
  });

  it('a jsonParse or jsonSchema deny names the check, never the text it read (no parser message quoting it)', async () => {
    const input = await post(gw.url, CHAT, say('not json at all, my private words'), header({ input_guardrails: ['json-only'] }));
    expect(input.status).toBe(422);
    expect(input.json.error).toMatchObject({
      type: 'guardrail_error',
      code: 'guardrail_failed',
      message: 'Guardrail "json-only" denied the request: jsonParse check failed (not valid JSON).',
    });
    expect(input.text).not.toContain('private words');
    expect(calls()).toBe(0);

    a.on(UPSTREAM_CHAT, { json: chatCompletion('{"answer": "the hidden answer text"') });
    const output = await post(gw.url, CHAT, say('give me json'), header({ output_guardrails: ['json-answer'] }));
    expect(output.status).toBe(422);
    expect(output.json.error.message).toBe('Guardrail "json-answer" denied the answer: jsonSchema check failed (not valid JSON).');
    expect(output.text).not.toContain('hidden answer');
  });
});
