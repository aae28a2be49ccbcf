/**
 * Every OpenAI-compatible provider of providers/*.yaml, checked against its documented wire
 * format through the gateway: each one's address points at a fake upstream (under a folder of
 * its own id), one request goes through the gateway, and what the fake received is asserted:
 * the path (the file's base URL path and the operation's path), the key header and its prefix,
 * the fixed headers, and the request fields the file renames or drops. Bounds are clamped or
 * refused as the file says.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { fixtureJson } from '../../helpers/fixtures.js';
import { PROVIDER_DATA } from '../../../src/features/models/providers/builtin-providers.js';
import type { ProviderData } from '../../../src/features/models/providers/openai-compatible/provider-data.js';

const KEY = 'sk-data-provider-key-0123456789';

/** The operation each provider is checked with: chat where it has it, else embeddings. */
const opOf = (d: ProviderData) => (d.operations.includes('chat.completions') || d.operations.includes('openai-api') ? 'chat.completions' : 'embeddings');
const OPENAI_PATH = { 'chat.completions': '/chat/completions', embeddings: '/embeddings' } as const;
/** The path part of a base URL ({placeholders} kept as a fixed word: a configured baseUrl replaces it). */
const basePath = (d: ProviderData) => new URL(d.base_url.replace(/\{[a-z0-9_]+\}/g, 'x')).pathname.replace(/\/$/, '');

/** Every field some data file renames or drops, with a value the gateway's validation accepts. */
const CHAT_FIELDS: Record<string, unknown> = {
  frequency_penalty: 0.1,
  presence_penalty: 0.1,
  logit_bias: { '50256': -100 },
  logprobs: true,
  top_logprobs: 1,
  n: 1,
  service_tier: 'auto',
  user: 'user-1',
  temperature: 0.5,
  max_tokens: 5,
};
const EMBEDDING_FIELDS: Record<string, unknown> = { dimensions: 8, user: 'user-1' };

let fake: FakeUpstream;
let gw: TestGateway;

beforeAll(async () => {
  fake = new FakeUpstream();
  const providers: Record<string, unknown> = {};
  for (const d of PROVIDER_DATA) {
    const op = opOf(d);
    const path = `/${d.id}${basePath(d)}${d.paths?.[op] ?? OPENAI_PATH[op]}`;
    fake.on(`POST ${path}`, { json: fixtureJson('openai', op === 'chat.completions' ? 'chat' : 'embeddings') });
    providers[d.id] = { baseUrl: `http://127.0.0.1:PORT/${d.id}${basePath(d)}` };
  }
  await fake.start();
  for (const p of Object.values(providers) as Array<{ baseUrl: string }>) p.baseUrl = p.baseUrl.replace('http://127.0.0.1:PORT', fake.url);
  gw = await startGateway({ providers });
});

afterAll(async () => {
  await gw?.close();
  await fake?.stop();
});

async function send(id: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gateway-provider': id, 'x-gateway-api-key': KEY, ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('providers as data: one request each through the gateway, the outbound request asserted', () => {
  it('ships at least 60 providers, 50 or more of them as data files', async () => {
    const { BUILTIN_PROVIDERS } = await import('../../../src/features/models/providers/builtin-providers.js');
    expect(BUILTIN_PROVIDERS.length).toBeGreaterThanOrEqual(60);
    expect(PROVIDER_DATA.length).toBeGreaterThanOrEqual(50);
    expect(new Set(BUILTIN_PROVIDERS.map((p) => p.name)).size).toBe(BUILTIN_PROVIDERS.length);
  });

  for (const d of PROVIDER_DATA) {
    const op = opOf(d);
    it(`${d.id}: ${op} goes to <baseUrl>${d.paths?.[op] ?? OPENAI_PATH[op]} with ${d.auth.header}: ${d.auth.prefix ?? ''}<key>${d.params ? ', fields renamed and dropped as documented' : ''}`, async () => {
      const before = fake.requests.length;
      const fields = op === 'chat.completions' ? CHAT_FIELDS : EMBEDDING_FIELDS;
      const body = op === 'chat.completions' ? { model: 'm1', messages: [{ role: 'user', content: 'hi' }], ...fields } : { model: 'e1', input: 'hi', ...fields };
      const res = await send(d.id, op === 'chat.completions' ? '/v1/chat/completions' : '/v1/embeddings', body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(fake.requests.length - before).toBe(1);
      const got = fake.requests.at(-1)!;
      expect(got.path).toBe(`/${d.id}${basePath(d)}${d.paths?.[op] ?? OPENAI_PATH[op]}`);
      expect(got.headers[d.auth.header]).toBe(`${d.auth.prefix ?? ''}${KEY}`);
      if (d.auth.header !== 'authorization') expect(got.headers.authorization).toBeUndefined();
      for (const [name, value] of Object.entries(d.headers ?? {})) expect(got.headers[name.toLowerCase()]).toBe(value);
      const sent = got.json();
      expect(sent.model).toBe(body.model);
      const dropped = new Set(d.params?.drop ?? []);
      const renamed = d.params?.rename ?? {};
      for (const [field, value] of Object.entries(fields)) {
        if (dropped.has(field)) expect(sent, `${field} is dropped`).not.toHaveProperty(field);
        else if (renamed[field]) {
          expect(sent, `${field} is renamed`).not.toHaveProperty(field);
          expect(sent[renamed[field]!]).toEqual(value);
        } else expect(sent[field], field).toEqual(value);
      }
    });
  }
});

describe('providers as data: documented bounds', () => {
  it('moonshot takes temperature up to 1: 1.5 is sent as 1', async () => {
    const res = await send('moonshot', '/v1/chat/completions', { model: 'kimi-k2', messages: [{ role: 'user', content: 'hi' }], temperature: 1.5 });
    expect(res.status).toBe(200);
    expect(fake.requests.at(-1)!.json().temperature).toBe(1);
  });

  it('ai21 takes n up to 16: 20 is a 400 naming n, and nothing is sent', async () => {
    const before = fake.requests.length;
    const res = await send('ai21', '/v1/chat/completions', { model: 'jamba-large', messages: [{ role: 'user', content: 'hi' }], n: 20 });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('n');
    expect(res.body.error.message).toContain('AI21 Labs takes n from 1 to 16');
    expect(fake.requests.length).toBe(before);
  });

  it('an operation a data provider does not serve is a 400 naming it, before anything is sent', async () => {
    const before = fake.requests.length;
    const res = await send('voyage', '/v1/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('voyage');
    expect(fake.requests.length).toBe(before);
  });
});
