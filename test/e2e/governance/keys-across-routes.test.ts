import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI, { toFile } from 'openai';
import { request } from 'undici';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { parseForm } from '../../helpers/multipart.js';
import { refusal } from '../../helpers/sdk-refusal.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { stdioToolServer } from '../../helpers/mcp.js';
import { issueKey } from '../../helpers/gateway-keys.js';

const ADMIN = 'admin-token-keys-routes-0123456789abcdef';
const HELD = 'sk-held-openai-routes-0001';

/**
 * A gateway key on every priced route, under money budgets, with nothing faked inside the
 * gateway: the shipped price table (embeddings priced by input only, speech per character,
 * transcription per second), a catalogue glob through a held credential, a key's own budget on
 * priced MCP tool calls, an organisation's budget reached through the key's team.
 */
describe('gateway keys under money budgets on every route', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;

  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await request(`${gw.url}${path}`, {
      method: method as 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.statusCode, json: (await res.body.json()) as any };
  };
  const issue = (fields: Record<string, unknown>) => issueKey(gw.url, ADMIN, { user: 'someone@example.com', ...fields });
  const client = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });

  beforeAll(async () => {
    upstream = await new FakeUpstream().start();
    upstream
      .on('POST /v1/embeddings', {
        json: {
          object: 'list',
          data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }],
          model: 'text-embedding-3-small',
          usage: { prompt_tokens: 1000, total_tokens: 1000 },
        },
      })
      .on('POST /v1/audio/speech', { raw: Buffer.from('ID3 mp3 bytes'), headers: { 'content-type': 'audio/mpeg' } })
      .on('POST /v1/audio/transcriptions', { json: { text: 'heard', usage: { type: 'duration', seconds: 12 } } })
      .on('POST /v1/chat/completions', {
        json: {
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1,
          model: 'my-private-model',
          choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
        },
      });
    gw = await startGateway({
      logging: { level: 'warn' },
      auth: { enabled: true, type: 'bearer', adminToken: ADMIN },
      secrets: { key: 'ef'.repeat(32) },
      providers: { openai: { baseUrl: `${upstream.url}/v1` } },
      credentials: { 'openai-prod': { provider: 'openai', api_key: HELD } },
      models: {
        'openai/*': { targets: [{ provider: 'openai', credential: 'openai-prod' }] },
        listener: { targets: [{ provider: 'openai', model: 'whisper-1', credential: 'openai-prod' }] },
        secret: { targets: [{ provider: 'openai', model: 'my-private-model', credential: 'openai-prod' }] },
      },
      tenants: { organizations: { acme: {} }, teams: { search: { organization: 'acme' }, solo: {} } },
      budgets: { team: { search: { limit_usd: 500, window: { period: 'month' } } } },
      mcpServers: { tools: { ...stdioToolServer(), toolPrices: { echo: '0.001' } } },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });

  it('serves embeddings, speech and a transcription under a money budget, each at its price', async () => {
    const { token } = await issue({ team: 'search' });
    const embedded = await client(token).embeddings.create({ model: 'openai/text-embedding-3-small', input: 'hello' }).withResponse();
    // 1,000 input tokens at $0.02 per million
    expect(embedded.response.headers.get('x-gateway-cost')).toBe('0.000020');
    const spoken = await client(token).audio.speech.create({ model: 'openai/tts-1', voice: 'alloy', input: 'eleven char' }).withResponse();
    expect(spoken.response.status).toBe(200);
    // 11 characters at $15 per million
    expect(spoken.response.headers.get('x-gateway-cost')).toBe('0.000165');
    const heard = await client(token)
      .audio.transcriptions.create({ model: 'listener', file: await toFile(Buffer.from('RIFF audio'), 'a.wav', { type: 'audio/wav' }) })
      .withResponse();
    expect(heard.data.text).toBe('heard');
    // 12 seconds at $0.0001 a second, routed by the form's model, the catalogue's model sent upstream with the held key
    expect(heard.response.headers.get('x-gateway-cost')).toBe('0.001200');
    const sent = upstream.received('POST /v1/audio/transcriptions').at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${HELD}`);
    expect((await parseForm(sent)).fields.model).toEqual(['whisper-1']);
  });

  it('routes an upload by a glob model too, and answers an unknown one as 404 model_not_found', async () => {
    const { token } = await issue({ team: 'search' });
    const heard = await client(token).audio.transcriptions.create({ model: 'openai/whisper-1', file: await toFile(Buffer.from('RIFF'), 'a.wav') });
    expect(heard.text).toBe('heard');
    expect((await parseForm(upstream.received('POST /v1/audio/transcriptions').at(-1)!)).fields.model).toEqual(['whisper-1']);
    const unknown = await refusal(client(token).audio.transcriptions.create({ model: 'nobody/knows', file: await toFile(Buffer.from('RIFF'), 'a.wav') }));
    expect(unknown.status).toBe(404);
    expect((unknown.error as { code?: string }).code).toBe('model_not_found');
  });

  it('refuses an unpriced catalogue model under a money budget naming it as the caller did, not its upstream model', async () => {
    const { token } = await issue({ team: 'search' });
    const refused = await refusal(client(token).chat.completions.create({ model: 'secret', messages: [{ role: 'user', content: 'hi' }] }));
    expect(refused.status).toBe(403);
    expect(refused.message).toContain('secret');
    expect(refused.message).not.toContain('my-private-model');
  });

  it("charges a key's priced tool calls to its own budget and refuses the call that does not fit", async () => {
    const { token } = await issue({ team: 'solo', scopes: ['mcp:read', 'mcp:write'], budgets: [{ limit_usd: 0.0025, window: { period: 'day' } }] });
    const mcp = new Client({ name: 'budget-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      for (let i = 0; i < 2; i++) {
        const answer = await mcp.callTool({ name: 'tools__echo', arguments: { text: `call ${i}` } });
        expect(answer.isError).not.toBe(true);
      }
      // 0.002 spent of 0.0025: a third call at 0.001 does not fit
      const refused = await mcp.callTool({ name: 'tools__echo', arguments: { text: 'one more' } }).catch((err: Error) => err);
      expect(refused).toBeInstanceOf(Error);
      expect(String((refused as Error).message)).toMatch(/budget/i);
    } finally {
      await mcp.close();
    }
    const me = await request(`${gw.url}/v1/me`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await me.body.json()) as { budgets: Array<{ scope: string; limit_usd: number; spent_usd: string }> };
    const own = body.budgets.find((b) => b.scope === 'key');
    expect(own).toMatchObject({ limit_usd: 0.0025 });
    expect(Number(own!.spent_usd)).toBeCloseTo(0.002, 6);
  });

  it("puts a key of a team under its organisation's budget, in its ledger rows and in /v1/me", async () => {
    const budget = await admin('POST', '/v1/admin/budgets', { scope: 'organization', subject: 'acme', limit_usd: 0.000001, window: { period: 'day' } });
    expect(budget.status).toBe(201);
    try {
      const key = await issue({ team: 'search' });
      expect(key.organization).toBe('acme');
      // some 400 tokens at $0.02 per million: 8 microdollars, counted even with the tokenizer
      const refused = await refusal(client(key.token).embeddings.create({ model: 'openai/text-embedding-3-small', input: 'hello world '.repeat(200) }));
      expect(refused.status).toBe(429);
      expect(refused.message).toContain('organization budget');
      const me = await request(`${gw.url}/v1/me`, { headers: { authorization: `Bearer ${key.token}` } });
      expect(((await me.body.json()) as { organization: string }).organization).toBe('acme');
    } finally {
      expect((await admin('DELETE', `/v1/admin/budgets/${budget.json.id}`)).status).toBe(200);
    }
  });

  it('refuses a budget in a time zone the gateway does not know, through the admin API and on a key', async () => {
    const made = await admin('POST', '/v1/admin/budgets', { scope: 'team', subject: 'solo', limit_usd: 1, window: { period: 'day', timezone: 'Mars/Base' } });
    expect(made.status).toBe(400);
    expect(made.json.error.param).toBe('window.timezone');
    const key = await admin('POST', '/v1/auth/tokens', { user: 'tz@example.com', budgets: [{ limit_usd: 1, window: { period: 'day', timezone: 'Not/AZone' } }] });
    expect(key.status).toBe(400);
    expect(key.json.error.param).toBe('budgets[0].window.timezone');
    const { id } = await issue({ team: 'solo' });
    const patched = await admin('PATCH', `/v1/auth/tokens/${id}`, { budgets: [{ limit_usd: 1, window: { period: 'day', timezone: 'Nowhere/Land' } }] });
    expect(patched.status).toBe(400);
    const fine = await admin('PATCH', `/v1/auth/tokens/${id}`, { budgets: [{ limit_usd: 1, window: { period: 'day', timezone: 'Europe/Paris' } }] });
    expect(fine.status).toBe(200);
  });

  it('reads the key on /v1/me from every header provider routes read it from, beside an SDK placeholder key', async () => {
    const { id, token } = await issue({ team: 'solo' });
    const placeholder = { authorization: 'Bearer sk-placeholder-of-the-sdk' };
    for (const headers of [
      { authorization: `Bearer ${token}` },
      { 'x-api-key': token },
      { 'api-key': token },
      { ...placeholder, 'x-gateway-token': token },
      { ...placeholder, 'x-api-key': token },
      { ...placeholder, 'api-key': token },
    ]) {
      const me = await request(`${gw.url}/v1/me`, { headers });
      expect(me.statusCode, JSON.stringify(Object.keys(headers))).toBe(200);
      expect(((await me.body.json()) as { id: string }).id).toBe(id);
    }
  });

  it('answers a blocked key on /v1/me 403, and a valid key on an admin-token route 403 rather than 401', async () => {
    const { id, token } = await issue({ team: 'solo' });
    const usage = await request(`${gw.url}/v1/admin/usage`, { headers: { authorization: `Bearer ${token}` } });
    expect(usage.statusCode).toBe(403);
    expect(((await usage.body.json()) as any).error.type).toBe('permission_error');
    const wrong = await request(`${gw.url}/v1/admin/credentials`, { headers: { authorization: 'Bearer gwt_not-a-real-key-at-all-000000' } });
    expect(wrong.statusCode).toBe(401);
    await wrong.body.dump();
    expect((await admin('POST', `/v1/auth/tokens/${id}/block`)).status).toBe(200);
    const me = await request(`${gw.url}/v1/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.statusCode).toBe(403);
    await me.body.dump();
  });

  it('labels the token counter with the models the gateway knows, not other', async () => {
    const { token } = await issue({ team: 'search' });
    await client(token).embeddings.create({ model: 'openai/text-embedding-3-small', input: 'label me' });
    const metrics = await (await request(`${gw.url}/metrics`)).body.text();
    expect(metrics).toMatch(/gateway_tokens_total\{direction="input",provider="openai",model="text-embedding-3-small"\} \d+/);
  });
});
