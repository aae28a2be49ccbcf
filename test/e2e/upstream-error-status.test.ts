import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeUpstream } from '../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { CHAT, chatBody, post, UPSTREAM_CHAT } from '../helpers/routing-harness.js';

/**
 * An upstream error answer is classified by its HTTP status first (CONTRACT section 4: upstream
 * 401/403 -> 401 authentication_error with provider set, 429 -> 429 rate_limit_exceeded with
 * Retry-After, 5xx -> 502 provider_error), whatever type or code its body names; the body
 * refines only a status that does not decide (a 400's content refusal, a 404's unknown model).
 */
const KEY = 'sk-ant-error-status-key-0001';
const ANTHROPIC = { 'x-gateway-provider': 'anthropic', 'x-gateway-api-key': KEY };
const MESSAGES = { model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] };

const anthropicError = (type: string, message: string) => ({ type: 'error', error: { type, message } });

describe('upstream error statuses decide the gateway error', () => {
  let anthropic: FakeUpstream;
  let openai: FakeUpstream;
  let gw: TestGateway;

  beforeAll(async () => {
    [anthropic, openai] = await Promise.all([new FakeUpstream().start(), new FakeUpstream().start()]);
    gw = await startGateway({ providers: { anthropic: { baseUrl: anthropic.url }, openai: { baseUrl: `${openai.url}/v1` } } });
  });
  afterAll(async () => {
    await gw?.close();
    await Promise.all([anthropic?.stop(), openai?.stop()]);
  });
  beforeEach(() => {
    anthropic.requests.length = 0;
    openai.requests.length = 0;
  });

  const expected = {
    auth: { status: 401, error: { type: 'authentication_error', code: 'invalid_api_key', provider: 'anthropic' } },
    limit: { status: 429, error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', provider: 'anthropic' } },
    provider: { status: 502, error: { type: 'provider_error', code: 'provider_error', provider: 'anthropic' } },
  } as const;

  it.each([
    ['401 saying api_error', 401, anthropicError('api_error', 'bad key'), expected.auth],
    ['403 saying api_error', 403, anthropicError('api_error', 'not allowed'), expected.auth],
    ['401 saying invalid_request_error', 401, anthropicError('invalid_request_error', 'bad key'), expected.auth],
    ['429 saying api_error', 429, anthropicError('api_error', 'slow down'), expected.limit],
    ['429 saying overloaded_error', 429, anthropicError('overloaded_error', 'slow down'), expected.limit],
    ['500 saying rate_limit_error', 500, anthropicError('rate_limit_error', 'odd'), expected.provider],
    ['503 saying authentication_error', 503, anthropicError('authentication_error', 'odd'), expected.provider],
    ['529 overloaded_error', 529, anthropicError('overloaded_error', 'Overloaded'), expected.provider],
    [
      '400 invalid_request_error',
      400,
      anthropicError('invalid_request_error', 'max_tokens: field required'),
      { status: 400, error: { type: 'invalid_request_error', code: 'missing_required_parameter', provider: 'anthropic' } },
    ],
    [
      '400 refusing the content',
      400,
      anthropicError('invalid_request_error', 'Output blocked by content filtering policy'),
      { status: 400, error: { type: 'provider_error', code: 'content_policy_violation', provider: 'anthropic' } },
    ],
    [
      '404 naming the model',
      404,
      anthropicError('not_found_error', 'model: claude-nope'),
      { status: 404, error: { type: 'provider_error', code: 'model_not_found', provider: 'anthropic' } },
    ],
  ])('anthropic %s, on chat (translated) and /v1/messages (forwarded)', async (_label, status, body, want) => {
    anthropic.on('POST /v1/messages', { json: body, status, headers: { 'retry-after': '7', 'request-id': 'req_ant_1' } });
    const chat = await post(gw.url, CHAT, chatBody({ model: 'claude-sonnet-4-5' }), ANTHROPIC);
    const messages = await post(gw.url, '/v1/messages', MESSAGES, ANTHROPIC);
    for (const res of [chat, messages]) {
      expect(res.status).toBe(want.status);
      expect(res.json).toMatchObject({ status: 'failure', error: want.error });
      expect(res.headers['x-gateway-provider']).toBe('anthropic');
      if (want.status === 429) expect(res.headers['retry-after']).toBe('7');
    }
    const sent = anthropic.received('POST /v1/messages');
    expect(sent).toHaveLength(2);
    for (const r of sent) expect(r.headers['x-api-key']).toBe(KEY);
  });

  it('a stream whose upstream answers 401 saying api_error: 401 before any byte', async () => {
    anthropic.on('POST /v1/messages', { json: anthropicError('api_error', 'bad key'), status: 401 });
    const res = await post(gw.url, CHAT, chatBody({ model: 'claude-sonnet-4-5', stream: true }), ANTHROPIC);
    expect(res.status).toBe(401);
    expect(res.json.error).toMatchObject(expected.auth.error);
    expect(anthropic.received('POST /v1/messages')[0]!.json().stream).toBe(true);
  });

  it.each([
    [401, 'model_not_found', 401, 'invalid_api_key'],
    [429, 'content_policy_violation', 429, 'rate_limit_exceeded'],
    [500, 'model_not_found', 502, 'provider_error'],
  ])('openai %i whose body names code %s: %i %s', async (status, code, wantStatus, wantCode) => {
    openai.on(UPSTREAM_CHAT, { json: { error: { message: 'odd', type: 'invalid_request_error', code, param: null } }, status });
    const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai', 'x-gateway-api-key': 'sk-openai-error-status-0001' });
    expect(res.status).toBe(wantStatus);
    expect(res.json.error).toMatchObject({ code: wantCode, provider: 'openai' });
    expect(openai.received(UPSTREAM_CHAT)).toHaveLength(1);
  });
});
