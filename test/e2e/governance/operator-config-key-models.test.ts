/**
 * A key limited to some models (or whose team is) spends the operator's provider keys only on
 * models it names, whichever way the request reaches them: through the catalogue, and through an
 * operator's named config (configs.<name>) holding a key of its own, naming a held credential, or
 * falling back on providers.<id>.apiKey. Before, a named config served any model to any gateway
 * key, whatever its `models`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { issueKey } from '../../helpers/gateway-keys.js';
import { chatBody, chatCompletion, CHAT, post, UPSTREAM_CHAT } from '../../helpers/routing-harness.js';

const ADMIN = 'admin-token-operator-config-models-0123';
const PROVIDER_KEY = 'sk-operator-providers-key-0001';
const INLINE_KEY = 'sk-operator-config-inline-0002';
const HELD_KEY = 'sk-operator-held-credential-0003';

describe("an operator's named config and a key's models", () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;
  /** Limited to the catalogue model fast (gpt-4o-mini). */
  let fastOnly: string;
  /** Limited to openai/gpt-4.1, by provider-qualified name. */
  let qualified: string;
  /** Every model, but in a team limited to gpt-4o-mini. */
  let narrowTeam: string;
  /** Every model. */
  let unlimited: string;

  const auth = (key: string, config: string) => ({ authorization: `Bearer ${key}`, 'x-gateway-config': config });

  beforeAll(async () => {
    upstream = await new FakeUpstream().on(UPSTREAM_CHAT, { json: chatCompletion('ok') }).start();
    gw = await startGateway({
      logging: { level: 'warn' },
      auth: { adminToken: ADMIN },
      secrets: { key: 'ef'.repeat(32) },
      providers: { openai: { baseUrl: `${upstream.url}/v1`, apiKey: PROVIDER_KEY } },
      credentials: { 'openai-held': { provider: 'openai', api_key: HELD_KEY } },
      configs: {
        shared: { provider: 'openai' },
        inline: { provider: 'openai', api_key: INLINE_KEY },
        held: { credential: 'openai-held' },
        pinned: { provider: 'openai', override_params: { model: 'gpt-4.1' } },
      },
      models: { fast: { targets: [{ credential: 'openai-held', model: 'gpt-4o-mini' }] }, 'gpt-4o-mini': { provider: 'openai', model: 'gpt-4o-mini' } },
      tenants: {
        organizations: { acme: {} },
        teams: { open: { organization: 'acme' }, narrow: { organization: 'acme', models: ['gpt-4o-mini'] } },
      },
    });
    fastOnly = (await issueKey(gw.url, ADMIN, { user: 'fast@acme.example', team: 'open', models: ['fast'] })).token;
    qualified = (await issueKey(gw.url, ADMIN, { user: 'q@acme.example', team: 'open', models: ['openai/gpt-4.1'] })).token;
    narrowTeam = (await issueKey(gw.url, ADMIN, { user: 'n@acme.example', team: 'narrow' })).token;
    unlimited = (await issueKey(gw.url, ADMIN, { user: 'all@acme.example', team: 'open' })).token;
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });
  beforeEach(() => {
    upstream.requests.length = 0;
  });

  it('refuses a model the key may not use through every kind of named config, as the catalogue refuses an unknown model, and sends nothing', async () => {
    for (const [key, model, config] of [
      [fastOnly, 'gpt-4.1', 'shared'],
      [fastOnly, 'gpt-4.1', 'inline'],
      [fastOnly, 'gpt-4.1', 'held'],
      [qualified, 'gpt-4o-mini', 'shared'],
      [narrowTeam, 'gpt-4.1', 'inline'],
      // The config's override is the model that would go upstream.
      [fastOnly, 'gpt-4o-mini', 'pinned'],
      [narrowTeam, 'gpt-4o-mini', 'pinned'],
    ] as const) {
      const refused = await post(gw.url, CHAT, chatBody({ model }), auth(key, config));
      expect(refused.status, `${config} ${model}`).toBe(404);
      expect(refused.json.error).toMatchObject({ type: 'provider_error', code: 'model_not_found', param: 'model' });
      for (const secret of [PROVIDER_KEY, INLINE_KEY, HELD_KEY]) expect(refused.text).not.toContain(secret);
    }
    expect(upstream.requests).toEqual([]);
  });

  it('sends a model the key names (bare or provider-qualified) or reaches through the catalogue, and any model for a key of every model', async () => {
    for (const [key, model, config, sent] of [
      [qualified, 'gpt-4.1', 'shared', PROVIDER_KEY],
      [qualified, 'gpt-4.1', 'inline', INLINE_KEY],
      [qualified, 'gpt-4o-mini', 'pinned', PROVIDER_KEY],
      [narrowTeam, 'gpt-4o-mini', 'shared', PROVIDER_KEY],
      [fastOnly, 'gpt-4o-mini', 'held', HELD_KEY],
      [unlimited, 'gpt-4.1', 'shared', PROVIDER_KEY],
      [unlimited, 'o3', 'inline', INLINE_KEY],
      [unlimited, 'gpt-4.1', 'held', HELD_KEY],
    ] as const) {
      upstream.requests.length = 0;
      const answer = await post(gw.url, CHAT, chatBody({ model }), auth(key, config));
      expect(answer.status, `${config} ${model}`).toBe(200);
      expect(upstream.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${sent}`]);
    }
  });

  it('leaves a caller who brings its own provider key, and no gateway key, out of it: the named config then holds no key for it', async () => {
    const own = await post(gw.url, CHAT, chatBody({ model: 'gpt-4.1' }), {
      authorization: 'Bearer sk-callers-own-key',
      'x-gateway-config': 'shared',
      'x-gateway-provider': 'openai',
    });
    expect(own.status).toBe(200);
    expect(upstream.requests.map((r) => r.headers.authorization)).toEqual(['Bearer sk-callers-own-key']);
  });
});
