import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { FakeUpstream } from '../helpers/fake-upstream.js';
import { fixtureJson } from '../helpers/fixtures.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { connectClient, rawPost, stdioToolServer, textOf } from '../helpers/mcp.js';

const KEY = 'sk-pipelines-test-0001';
const ADMIN = 'admin-token-for-the-pipelines-test-0123456789';
const HEADER_STAMP = './examples/plugins/header-stamp.mjs';
const REQUIRE_HEADER = './examples/plugins/require-header.mjs';

/** A pipelines.dir of the user's own files. */
function pipelinesDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-user-pipelines-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const stamp = (value: string, after = 'normalize-error') => `insert:\n  - after: ${after}\n    stages:\n      - header-stamp: { header: x-stamped, value: ${value} }\n`;

/**
 * Users edit a route without copying it: a file in pipelines.dir extends a shipped pipeline and
 * inserts a plugin stage; only the routes of that pipeline run it.
 */
describe('user pipelines that extend the shipped ones', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;
  let dir: string;

  beforeAll(async () => {
    upstream = await new FakeUpstream()
      .on('POST /v1/chat/completions', { json: fixtureJson('openai', 'chat') })
      .on('POST /v1/embeddings', { json: fixtureJson('openai', 'embeddings') })
      .on('GET /v1/models', { json: fixtureJson('openai', 'models') })
      .start();
    dir = pipelinesDir({
      'chat.yaml': `name: chat\nextends: chat\n${stamp('chat')}`,
      'mcp.yaml': `name: mcp\nextends: mcp\n${stamp('mcp')}`,
      'admin.yaml': `name: admin\nextends: admin\n${stamp('admin')}`,
    });
    gw = await startGateway({
      plugins: [HEADER_STAMP],
      pipelines: { dir },
      providers: { openai: { baseUrl: `${upstream.url}/v1` } },
      auth: { adminToken: ADMIN },
      mcpServers: { local: stdioToolServer() },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('chat answers carry the inserted stage, errors included; other provider routes do not', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: KEY, defaultHeaders: { 'x-gateway-provider': 'openai' } });
    const chat = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    expect(chat.data.choices[0]!.message.content).toBeTruthy();
    expect(chat.response.headers.get('x-stamped')).toBe('chat');
    const refused = await fetch(`${gw.url}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('x-stamped')).toBe('chat');

    const embeddings = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'hi' }).withResponse();
    expect(embeddings.response.headers.get('x-stamped')).toBeNull();
    const models = await client.models.list().withResponse();
    expect(models.response.headers.get('x-stamped')).toBeNull();
    expect((await fetch(`${gw.url}/health`)).headers.get('x-stamped')).toBeNull();
  });

  it('/mcp answers carry the stage inserted into the mcp pipeline, the tools still work', async () => {
    const seen: string[] = [];
    const client = await connectClient(`${gw.url}/mcp`, {}, async (url, init) => {
      const res = await fetch(url, init);
      seen.push(res.headers.get('x-stamped') ?? 'none');
      return res;
    });
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('local__echo');
      expect(textOf(await client.callTool({ name: 'local__echo', arguments: { text: 'through the pipeline' } }))).toContain('through the pipeline');
    } finally {
      await client.close();
    }
    expect(seen.length).toBeGreaterThan(1);
    expect(new Set(seen)).toEqual(new Set(['mcp']));
    const missing = await rawPost(`${gw.url}/mcp/nope`, { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-stamped')).toBe('mcp');
  });

  it('the token operations carry the stage inserted into the admin pipeline, a refused one too', async () => {
    const list = await fetch(`${gw.url}/v1/auth/tokens`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(list.status).toBe(200);
    expect(list.headers.get('x-stamped')).toBe('admin');
    expect(await list.json()).toMatchObject({ object: 'list', has_more: false });
    const refused = await fetch(`${gw.url}/v1/auth/tokens`, { method: 'POST', body: '{}' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata=/);
    expect(refused.headers.get('x-stamped')).toBe('admin');
  });

  it('logs one JSON line per request with its request id, for every kind of route', async () => {
    const res = await fetch(`${gw.url}/v1/auth/tokens`, { headers: { authorization: `Bearer ${ADMIN}` } });
    const id = res.headers.get('x-gateway-request-id');
    const line = gw.logs.records().find((r) => r.msg === 'request' && r.requestId === id);
    expect(line).toMatchObject({ route: 'GET /v1/auth/tokens', method: 'GET', status: 200, user: 'admin' });
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(metrics).toMatch(/gateway_requests_total\{route="GET \/v1\/auth\/tokens",provider="none",status="200"\} \d+/);
    expect(metrics).toMatch(/gateway_requests_total\{route="POST \/mcp",provider="none",status="200"\} \d+/);
  });
});

describe('when: on a stage, and a plugin stage that refuses with ctx.reject', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;
  let dir: string;

  beforeAll(async () => {
    upstream = await new FakeUpstream().on('POST /v1/chat/completions', { json: fixtureJson('openai', 'chat') }).start();
    dir = pipelinesDir({
      'chat.yaml': [
        'name: chat',
        'extends: chat',
        'insert:',
        '  - after: authenticate',
        '    stages:',
        '      - header-stamp: { header: x-tier-seen, value: pro }',
        '        when: { $or: [{ headers.x-tier: pro }, { metadata.tier: pro }] }',
        '      - require-header: { header: x-team, values: [search, ads] }',
        '        when: { params.model: { $regex: "^gpt-4o" } }',
        '  - after: fallback',
        '    stages:',
        '      - require-header: { header: x-attempt-ok, status: 400 }',
        '        when: { headers.x-check-attempt: "yes" }',
      ].join('\n'),
    });
    gw = await startGateway({ plugins: [HEADER_STAMP, REQUIRE_HEADER], pipelines: { dir }, providers: { openai: { baseUrl: `${upstream.url}/v1` } } });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const chat = (model: string, headers: Record<string, string> = {}) =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-provider': 'openai', 'x-gateway-api-key': KEY, ...headers },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    });

  it('runs a stage only for requests its query matches (headers, metadata, body params)', async () => {
    expect((await chat('o1', { 'x-tier': 'pro' })).headers.get('x-tier-seen')).toBe('pro');
    expect((await chat('o1', { 'x-gateway-metadata': '{"tier":"pro"}' })).headers.get('x-tier-seen')).toBe('pro');
    const plain = await chat('o1', { 'x-tier': 'basic' });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('x-tier-seen')).toBeNull();
  });

  it('ctx.reject answers with the contract error body and its status; nothing is sent upstream', async () => {
    const before = upstream.received('POST /v1/chat/completions').length;
    const missing = await chat('gpt-4o-mini');
    expect(missing.status).toBe(403);
    expect(missing.headers.get('x-gateway-request-id')).toBeTruthy();
    expect(await missing.json()).toEqual({
      status: 'failure',
      message: 'POST /v1/chat/completions needs the x-team header.',
      error: {
        type: 'permission_error',
        code: 'insufficient_permissions',
        message: 'POST /v1/chat/completions needs the x-team header.',
        param: 'x-team',
        provider: null,
      },
    });
    const wrong = await chat('gpt-4o-mini', { 'x-team': 'sales' });
    expect(wrong.status).toBe(403);
    expect(((await wrong.json()) as any).error.message).toBe('x-team: sales may not use POST /v1/chat/completions.');
    expect(upstream.received('POST /v1/chat/completions').length).toBe(before);

    expect((await chat('gpt-4o-mini', { 'x-team': 'ads' })).status).toBe(200);
    expect((await chat('o1')).status).toBe(200);
    expect(upstream.received('POST /v1/chat/completions').length).toBe(before + 2);
  });

  it('a rejection in the per-attempt part of the pipeline (after fallback) keeps its status: no fallback, nothing upstream', async () => {
    const before = upstream.received('POST /v1/chat/completions').length;
    const res = await chat('o1', { 'x-check-attempt': 'yes', 'x-gateway-debug': 'true' });
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'missing_required_parameter', param: 'x-attempt-ok', provider: null });
    expect(body.error.debug.attempts).toEqual([expect.objectContaining({ provider: 'openai', status: 400 })]);
    expect(res.headers.get('x-gateway-provider')).toBe('openai');
    expect(upstream.received('POST /v1/chat/completions').length).toBe(before);
    expect((await chat('o1', { 'x-check-attempt': 'yes', 'x-attempt-ok': '1' })).status).toBe(200);
  });
});

/** The other extension kinds come from plugins too, in the same shape: a guardrail check and an auth mode. */
describe('plugins of every kind', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;
  let dir: string;
  let plugins: string;

  beforeAll(async () => {
    upstream = await new FakeUpstream().on('POST /v1/chat/completions', { json: fixtureJson('openai', 'chat') }).start();
    plugins = mkdtempSync(join(tmpdir(), 'gw-kind-plugins-'));
    writeFileSync(
      join(plugins, 'no-shouting.mjs'),
      `export const kind = 'guardrail-check';
       export const name = 'no-shouting';
       export const description = 'Fails when a text has a run of capital letters.';
       export const schema = { type: 'object', additionalProperties: false, properties: { type: { const: 'no-shouting' }, run: { type: 'integer', minimum: 2, default: 5 } } };
       export function create(config) {
         const re = new RegExp('[A-Z]{' + config.run + ',}');
         return ({ text }) => (re.test(text) ? { passed: false, detail: 'shouting' } : { passed: true, detail: 'calm' });
       }`,
    );
    writeFileSync(
      join(plugins, 'shared-secret.mjs'),
      `export default {
         kind: 'auth-mode',
         name: 'shared-secret',
         description: 'Callers that know one shared secret (x-shared-secret).',
         schema: { type: 'object', additionalProperties: false, required: ['secret'], properties: { secret: { type: 'string', minLength: 8 } } },
         create(settings) {
           return {
             async authenticate(ctx) {
               if (ctx.headers['x-shared-secret'] !== settings.secret) ctx.reject(401, { message: 'Send the shared secret in x-shared-secret.' });
               return { kind: 'shared-secret', id: 'shared', user: 'friend', scopes: ['mcp:read', 'mcp:write'] };
             },
           };
         },
       };`,
    );
    dir = pipelinesDir({
      'mcp.yaml': 'name: mcp\nextends: mcp\nconfigure:\n  authenticate: { credential: gateway, mode: shared-secret, options: { secret: open-sesame } }\n',
    });
    gw = await startGateway({
      plugins: [join(plugins, 'no-shouting.mjs'), join(plugins, 'shared-secret.mjs')],
      pipelines: { dir },
      providers: { openai: { baseUrl: `${upstream.url}/v1` } },
      guardrails: { calm: { checks: [{ type: 'no-shouting', run: 4 }] } },
      configs: { calm: { provider: 'openai', input_guardrails: ['calm'] } },
      mcpServers: { local: stdioToolServer() },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(plugins, { recursive: true, force: true });
  });

  it('a guardrail check from a plugin serves guardrails.<id> like the built-in ones', async () => {
    const send = (content: string) =>
      fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gateway-config': 'calm', 'x-gateway-api-key': KEY },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }),
      });
    const denied = await send('PLEASE ANSWER');
    expect(denied.status).toBe(422);
    expect(((await denied.json()) as any).error).toMatchObject({
      type: 'guardrail_error',
      code: 'guardrail_failed',
      message: expect.stringContaining('no-shouting check failed (shouting)'),
    });
    expect((await send('please answer')).status).toBe(200);
  });

  it('an auth mode from a plugin authenticates /mcp when the mcp pipeline names it', async () => {
    const refused = await rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(refused.status).toBe(401);
    expect(refused.json).toMatchObject({ status: 'failure', error: { type: 'authentication_error', message: 'Send the shared secret in x-shared-secret.' } });
    const client = await connectClient(`${gw.url}/mcp`, { 'x-shared-secret': 'open-sesame' });
    try {
      expect(textOf(await client.callTool({ name: 'local__echo', arguments: { text: 'friend' } }))).toContain('friend');
    } finally {
      await client.close();
    }
  });

  it('a plugin config that fails its kind schema stops start-up, naming the key', async () => {
    const err = await startGateway({
      plugins: [join(plugins, 'no-shouting.mjs')],
      guardrails: { calm: { checks: [{ type: 'no-shouting', run: 1 }] } },
    }).catch((e) => e);
    expect(err.problems).toEqual(['guardrails.calm.checks[0].run: must be >= 2']);
  });

  it('auth mode settings are checked at start-up: the auth section, and the options of a stage against the mode schema', async () => {
    const err = await startGateway({ auth: { enabled: true, type: 'oauth' } }).catch((e) => e);
    expect(err.problems).toEqual(['auth.issuer: is required when auth.type is oauth']);
    const bad = await startGateway({
      plugins: [join(plugins, 'shared-secret.mjs')],
      pipelines: {
        dir: pipelinesDir({ 'mcp.yaml': 'name: mcp\nextends: mcp\nconfigure:\n  authenticate: { credential: gateway, mode: shared-secret, options: { secret: short } }\n' }),
      },
    }).catch((e) => e);
    expect(bad.problems).toEqual([expect.stringMatching(/mcp\.yaml: stages\[2\]\.authenticate\.options\.secret: must be at least 8 characters$/)]);
  });
});
