import { afterAll, beforeAll, describe, it } from 'vitest';
import fc from 'fast-check';
import { PROVIDER_ROUTES } from '../../src/contract/routes.js';
import {
  CALLER_SECRETS,
  credentialsOf,
  expectContractError,
  expectHealthy,
  expectNoSecret,
  fuzz,
  headerValue,
  nastyString,
  PROVIDER_IDS,
  RUNS,
  send,
  startFuzzWorld,
  summary,
  countStatus,
  type FuzzRequest,
  type FuzzWorld,
} from './harness.js';

/** Plausible bodies per route, which the fuzz then breaks field by field. */
const SEEDS: Record<string, Record<string, unknown>> = {
  '/v1/chat/completions': { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 5 },
  '/v1/completions': { model: 'gpt-3.5-turbo-instruct', prompt: 'Hi', max_tokens: 5 },
  '/v1/embeddings': { model: 'text-embedding-3-small', input: 'Hi' },
  '/v1/images/generations': { model: 'dall-e-3', prompt: 'a fox', n: 1, size: '1024x1024' },
  '/v1/audio/speech': { model: 'tts-1', input: 'Hi', voice: 'alloy' },
  '/v1/batches': { input_file_id: 'file-abc', endpoint: '/v1/chat/completions', completion_window: '24h' },
  '/v1/fine_tuning/jobs': { model: 'gpt-4o-mini', training_file: 'file-abc' },
};

const jsonValue = fc.jsonValue({ maxDepth: 4 });
const PROVIDER_HEADERS = [
  'x-gateway-azure-resource-name',
  'x-gateway-azure-deployment-id',
  'x-gateway-azure-api-version',
  'x-gateway-aws-region',
  'x-gateway-aws-access-key-id',
  'x-gateway-aws-secret-access-key',
  'x-gateway-aws-session-token',
  'x-gateway-vertex-project-id',
  'x-gateway-vertex-region',
  'x-gateway-vertex-service-account-json',
  'x-gateway-fireworks-account-id',
  'x-gateway-custom-host',
  'x-gateway-metadata',
  'x-gateway-debug',
  'x-gateway-cache-force-refresh',
  'x-gateway-batch-mode',
  'x-gateway-token',
  'anthropic-version',
];

/** A body: a seed with fields replaced, removed or added; any JSON; or text that is not JSON. */
function bodyFor(path: string): fc.Arbitrary<string> {
  const seed = SEEDS[path] ?? {};
  const keys = Object.keys(seed);
  const mutated = fc
    .record({
      drop: fc.subarray(keys),
      set: fc.dictionary(
        fc.oneof(fc.constantFrom(...keys, 'stream', 'n', 'temperature', 'tools', 'response_format', 'stream_options', 'messages', 'model'), fc.string({ maxLength: 12 })),
        jsonValue,
        { maxKeys: 3 },
      ),
    })
    .map(({ drop, set }) => {
      const out: Record<string, unknown> = { ...seed };
      for (const k of drop) delete out[k];
      return JSON.stringify({ ...out, ...set });
    });
  return fc.oneof(
    { weight: 5, arbitrary: mutated },
    { weight: 2, arbitrary: jsonValue.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: nastyString },
    { weight: 1, arbitrary: fc.constant(JSON.stringify({ ...seed, stream: true })) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 }).map((d) => '['.repeat(d * 50) + ']'.repeat(d * 50)) },
  );
}

/** A routing config: valid-looking targets with awkward fields, any JSON, or a name. */
const routingConfig = fc.oneof(
  fc
    .record({
      strategy: fc.option(fc.record({ mode: fc.constantFrom('fallback', 'loadbalance', 'conditional', 'single', 'nope') }), { nil: undefined }),
      targets: fc.array(
        fc.record(
          {
            provider: fc.constantFrom(...PROVIDER_IDS, 'nope'),
            api_key: fc.constantFrom(...CALLER_SECRETS),
            aws_region: fc.oneof(fc.constant('us-east-1'), nastyString),
            azure_resource_name: nastyString,
            override_params: fc.dictionary(fc.string({ maxLength: 8 }), jsonValue, { maxKeys: 2 }),
            request_timeout: fc.integer({ min: -5, max: 3000 }),
            weight: fc.double({ noNaN: false }),
          },
          { requiredKeys: ['provider'] },
        ),
        { minLength: 0, maxLength: 3 },
      ),
    })
    .map((c) => JSON.stringify(c)),
  jsonValue.map((v) => JSON.stringify(v)),
  fc.constantFrom('named', 'missing-name', '{', ''),
);

function requestFor(route: (typeof PROVIDER_ROUTES)[number]): fc.Arbitrary<FuzzRequest> {
  const path = fc
    .record({
      id: fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{1,20}$/), fc.constantFrom('..', '.', '%2e%2e', 'file-gw-x', '%00', 'a%2Fb', '%zz', '%E0%A4%A')),
      query: fc.option(fc.stringMatching(/^[a-z_]{1,8}=[\x21-\x7e]{0,20}$/), { nil: undefined }),
    })
    .map(({ id, query }) => `${route.path.replace(/\{\w+\}/g, id)}${query ? `?${query.replace(/[#\s]/g, '')}` : ''}`);
  const headers = fc
    .record(
      {
        provider: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...PROVIDER_IDS) }, { weight: 1, arbitrary: headerValue }),
        key: fc.constantFrom(...CALLER_SECRETS.filter((s) => /^[\x20-\x7e]+$/.test(s))),
        keyHeader: fc.constantFrom('x-gateway-api-key', 'authorization'),
        config: fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: routingConfig }),
        extra: fc.dictionary(fc.constantFrom(...PROVIDER_HEADERS), headerValue, { maxKeys: 3 }),
        contentType: fc.constantFrom('application/json', 'application/json', 'application/json', 'text/plain', 'application/json; charset=latin1', 'multipart/form-data'),
      },
      { requiredKeys: ['key', 'keyHeader', 'contentType', 'config'] },
    )
    .map(({ provider, key, keyHeader, config, extra, contentType }) => {
      const h: Record<string, string> = { 'content-type': contentType, ...extra };
      if (provider !== undefined) h['x-gateway-provider'] = provider;
      h[keyHeader] = keyHeader === 'authorization' ? `Bearer ${key}` : key;
      if (config !== undefined && /^[\x20-\x7e]*$/.test(config)) h['x-gateway-config'] = config;
      return h;
    });
  return fc.record({ path, headers, body: route.body === 'json' ? bodyFor(route.path) : fc.constant(undefined) }).map(({ path, headers, body }) => ({
    method: route.method,
    path,
    headers,
    body,
  }));
}

/**
 * Every provider route, from the route table: generated malformed requests (bodies, headers,
 * routing configs, path ids, provider settings) against the echoing upstream. Each answer is a
 * success or the contract's error body with its status, carries no secret, and /health stays 200.
 */
describe('fuzz: provider routes', { timeout: 600_000 }, () => {
  let world: FuzzWorld;
  beforeAll(async () => {
    world = await startFuzzWorld();
  });
  afterAll(async () => {
    await world?.close();
    console.log(summary());
  });

  const routes = PROVIDER_ROUTES.filter((r) => r.body !== 'multipart');
  it.each(routes.map((r) => [r.key, r] as const))('%s', async (key, route) => {
    await fuzz(key, requestFor(route), RUNS(route.body === 'json' ? 150 : 40), async (req) => {
      const answer = await send(world, req);
      countStatus(answer.status);
      const what = `${req.method} ${req.path} ${JSON.stringify(req.headers).slice(0, 300)} ${String(req.body ?? '').slice(0, 200)}`;
      if (answer.status === 0) throw new Error(`${what}: the connection was closed without an answer`);
      const stream = String(answer.headers['content-type'] ?? '').startsWith('text/event-stream');
      const anthropicShape = req.path.startsWith('/v1/messages') && Object.keys(req.headers).some((h) => h.toLowerCase() === 'anthropic-version');
      if (answer.status >= 400) (anthropicShape ? expectAnthropicError : expectContractError)(answer, what);
      else if (stream && answer.status === 200) {
        // A stream ends with [DONE] or with one event carrying the whole error body.
        const events = answer.text.split('\n\n').filter((e) => e.startsWith('data: '));
        const last = events.at(-1)?.slice(6);
        if (last !== '[DONE]') expectContractError({ ...answer, status: JSON.parse(last ?? '{}')?.error ? statusOf(last!) : 0, text: last ?? '' }, `${what} (stream end)`);
      }
      expectNoSecret(answer, credentialsOf(req.headers), what);
      await expectHealthy(world);
    });
  });
});

/**
 * Contract section 2: errors on /v1/messages use Anthropic's error shape when the request
 * carries `anthropic-version`: `{ type: "error", error: { type, message } }`.
 */
function expectAnthropicError(answer: { status: number; text: string }, what: string): void {
  let body: any;
  try {
    body = JSON.parse(answer.text);
  } catch {
    throw new Error(`${what}: ${answer.status} with a body that is not JSON: ${answer.text.slice(0, 300)}`);
  }
  const ok = body?.type === 'error' && typeof body.error?.type === 'string' && typeof body.error?.message === 'string';
  if (!ok) throw new Error(`${what}: ${answer.status} without Anthropic's error body: ${answer.text.slice(0, 300)}`);
  if (answer.status === 500) throw new Error(`${what}: a ${answer.status} (the gateway failed unexpectedly): ${answer.text.slice(0, 300)}`);
}

/** The status an error event's code stands for (an SSE error has no status of its own). */
function statusOf(event: string): number {
  const code = JSON.parse(event).error?.code as string;
  const map: Record<string, number> = {
    request_timeout: 504,
    provider_error: 502,
    internal_error: 500,
    rate_limit_exceeded: 429,
    guardrail_failed: 422,
    service_unavailable: 503,
    invalid_api_key: 401,
    missing_required_parameter: 400,
    semantic_error: 422,
    not_found: 404,
    model_not_found: 404,
    content_policy_violation: 400,
    insufficient_permissions: 403,
  };
  return map[code] ?? -1;
}
