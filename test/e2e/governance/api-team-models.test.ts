// A team made through /v1/admin/teams bounds its keys to its `models`, as a team of the config
// file does (contract section 8): on the catalogue route, on GET /v1/models, and through a caller
// config naming a held credential. The bound was read only from the config file before.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { issueKey } from '../../helpers/gateway-keys.js';
import { answers, CHAT, chatBody, post, UPSTREAM_CHAT } from '../../helpers/routing-harness.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';

const ADMIN = 'admin-token-api-team-models-0123456789abcdef';
const HELD = 'sk-held-api-team-models-0123456789';

describe('the models of a team the admin API keeps bound its keys', () => {
  let openai: FakeUpstream;
  let gw: TestGateway;
  let key: string;

  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${gw.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const chat = (model: string, headers: Record<string, string> = {}) => post(gw.url, CHAT, chatBody({ model }), { authorization: `Bearer ${key}`, ...headers });
  const listed = async () => {
    const res = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { id: string }[] }).data.map((m) => m.id);
  };

  beforeAll(async () => {
    openai = await new FakeUpstream().start();
    gw = await startGateway({
      logging: { level: 'warn' },
      auth: { adminToken: ADMIN },
      providers: { openai: { baseUrl: `${openai.url}/v1` } },
      credentials: { 'openai-prod': { provider: 'openai', api_key: HELD } },
      models: {
        fast: { credential: 'openai-prod', model: 'gpt-4o-mini' },
        smart: { credential: 'openai-prod', model: 'gpt-4o' },
      },
      tenants: { organizations: { acme: {} } },
    });
    expect((await admin('POST', '/v1/admin/teams', { id: 'red', organization: 'acme', models: ['fast'] })).status).toBe(201);
    key = (await issueKey(gw.url, ADMIN, { user: 'ann@red', team: 'red' })).token;
  });
  afterAll(async () => {
    await gw?.close();
    await openai?.stop();
  });
  beforeEach(() => {
    openai.requests.length = 0;
    openai.on(UPSTREAM_CHAT, answers('served'));
  });

  it('serves the team’s model, and answers a model outside its models as an unknown one, sending nothing', async () => {
    expect((await chat('fast')).status).toBe(200);
    const refused = await chat('smart');
    const unknown = await chat('no-such-model');
    expect(refused.status).toBe(404);
    expect(refused.json.error).toMatchObject({ code: 'model_not_found', param: 'model' });
    expect(refused.json.error.message.replace('smart', 'X')).toBe(unknown.json.error.message.replace('no-such-model', 'X'));
    expect(openai.received(UPSTREAM_CHAT).map((r) => r.json().model)).toEqual(['gpt-4o-mini']);
    expect(await listed()).toEqual(['fast']);
  });

  it('keeps the bound through a caller config naming the held credential', async () => {
    const config = JSON.stringify({ credential: 'openai-prod' });
    expect((await post(gw.url, CHAT, chatBody({ model: 'gpt-4o' }), { authorization: `Bearer ${key}`, 'x-gateway-config': config })).status).toBe(404);
    expect((await post(gw.url, CHAT, chatBody({ model: 'gpt-4o-mini' }), { authorization: `Bearer ${key}`, 'x-gateway-config': config })).status).toBe(200);
    expect(openai.received(UPSTREAM_CHAT).map((r) => r.json().model)).toEqual(['gpt-4o-mini']);
  });

  it('follows a change of the team at once on this instance', async () => {
    expect((await admin('PATCH', '/v1/admin/teams/red', { models: ['fast', 'smart'] })).status).toBe(200);
    expect((await chat('smart')).status).toBe(200);
    expect(await listed()).toEqual(['fast', 'smart']);
    expect((await admin('PATCH', '/v1/admin/teams/red', { models: ['smart'] })).status).toBe(200);
    expect((await chat('fast')).status).toBe(404);
    expect(await listed()).toEqual(['smart']);
  });
});
