import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { answers, CHAT, chatBody, post, UPSTREAM_CHAT } from '../../helpers/routing-harness.js';

const ADMIN = 'admin-token-credentials-0123456789abcdef';
const FIRST_KEY = '12'.repeat(32);
const SECOND_KEY = 'a passphrase long enough to be stretched by scrypt';
const FILE_HELD = 'sk-held-in-the-config-file-0001';
const API_HELD = 'sk-held-through-the-admin-api-0002';
const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };

async function call(url: string, method: 'GET' | 'POST' | 'DELETE', body?: unknown): Promise<{ status: number; text: string; json: any }> {
  const res = await request(url, { method, headers: admin, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.body.text();
  return { status: res.statusCode, text, json: JSON.parse(text) };
}

function storedRows(dbPath: string): { name: string; sealed: string; last4: string }[] {
  const db = new Database(dbPath, { readonly: true });
  try {
    return db.prepare('SELECT name, sealed, last4 FROM gateway_credentials ORDER BY name').all() as { name: string; sealed: string; last4: string }[];
  } finally {
    db.close();
  }
}

/**
 * Contract section 8: credentials the gateway holds, from the config file and the admin API,
 * stored sealed with AES-256-GCM under secrets.key, re-sealed under a new key at start-up,
 * never shown again (only the last 4 characters).
 */
describe('held credentials', () => {
  let upstream: FakeUpstream;
  let dir: string;
  let dbPath: string;
  let gw: TestGateway | undefined;

  const start = (secrets: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}) =>
    startGateway(
      {
        logging: { level: 'info' },
        auth: { adminToken: ADMIN },
        providers: { openai: { baseUrl: `${upstream.url}/v1` } },
        credentials: { 'from-file': { provider: 'openai', api_key: FILE_HELD } },
        ...(secrets ? { secrets } : {}),
        ...extra,
      },
      { dataDir: dir },
    );

  async function gatewayKey(g: TestGateway): Promise<string> {
    const res = await request(`${g.url}/v1/auth/tokens`, { method: 'POST', headers: admin, body: JSON.stringify({ user: 'ops@example.com' }) });
    return ((await res.body.json()) as { token: string }).token;
  }

  /** A chat request through a caller config naming the credential, with a gateway key: the key upstream received. */
  async function keySentThrough(g: TestGateway, credential: string): Promise<string | undefined> {
    upstream.requests.length = 0;
    const res = await post(g.url, CHAT, chatBody(), { authorization: `Bearer ${await gatewayKey(g)}`, 'x-gateway-config': JSON.stringify({ credential }) });
    expect(res.status).toBe(200);
    return upstream.received(UPSTREAM_CHAT)[0]?.headers.authorization as string | undefined;
  }

  beforeAll(async () => {
    upstream = await new FakeUpstream().on(UPSTREAM_CHAT, answers('ok')).start();
    dir = mkdtempSync(join(tmpdir(), 'gw-credentials-'));
    dbPath = join(dir, 'gateway.db');
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores a credential sealed, shows only its last 4 characters, and uses it', async () => {
    gw = await start({ key: FIRST_KEY });
    const created = await call(`${gw.url}/v1/admin/credentials`, 'POST', { name: 'from-api', provider: 'openai', api_key: API_HELD, description: 'made by the API' });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ object: 'credential', name: 'from-api', provider: 'openai', fields: ['api_key'], last4: '0002', source: 'api' });
    expect(created.text).not.toContain(API_HELD);
    const listed = await call(`${gw.url}/v1/admin/credentials`, 'GET');
    expect(listed.json.data.map((c: any) => [c.name, c.source, c.last4])).toEqual([
      ['from-api', 'api', '0002'],
      ['from-file', 'file', '0001'],
    ]);
    expect(listed.text).not.toContain(API_HELD);
    expect(listed.text).not.toContain(FILE_HELD);
    const [row] = storedRows(dbPath);
    expect(row!.sealed.startsWith('v1:')).toBe(true);
    expect(row!.sealed).not.toContain(API_HELD);
    expect(Buffer.from(row!.sealed.slice(3), 'base64').toString('latin1')).not.toContain(API_HELD);
    expect(await keySentThrough(gw, 'from-api')).toBe(`Bearer ${API_HELD}`);
    expect(await keySentThrough(gw, 'from-file')).toBe(`Bearer ${FILE_HELD}`);
    expect(gw.logs.text).not.toContain(API_HELD);
  });

  it('refuses fields its provider does not declare, duplicates, and deleting a file credential', async () => {
    const unknownField = await call(`${gw!.url}/v1/admin/credentials`, 'POST', { name: 'odd', provider: 'openai', api_key: 'sk-odd-0123456789', aws_region: 'us-east-1' });
    expect(unknownField.status).toBe(400);
    expect(unknownField.json.error.param).toBe('aws_region');
    expect(unknownField.text).not.toContain('sk-odd-0123456789');
    const duplicate = await call(`${gw!.url}/v1/admin/credentials`, 'POST', { name: 'from-file', provider: 'openai', api_key: 'sk-another-0123456789' });
    expect(duplicate.status).toBe(422);
    const fileDelete = await call(`${gw!.url}/v1/admin/credentials/from-file`, 'DELETE');
    expect(fileDelete.status).toBe(422);
    const missing = await call(`${gw!.url}/v1/admin/credentials/nothing-here`, 'DELETE');
    expect(missing.status).toBe(404);
    const noAdmin = await request(`${gw!.url}/v1/admin/credentials`);
    expect(noAdmin.statusCode).toBe(401);
    await noAdmin.body.dump();
  });

  it('re-seals every stored value under the new key at start-up (rotation); the old key alone then reads nothing', async () => {
    const before = storedRows(dbPath)[0]!.sealed;
    await gw!.close();
    gw = await start({ key: SECOND_KEY, previousKeys: [FIRST_KEY] });
    const after = storedRows(dbPath)[0]!.sealed;
    expect(after).not.toBe(before);
    expect(await keySentThrough(gw, 'from-api')).toBe(`Bearer ${API_HELD}`);
    await gw.close();
    gw = await start({ key: SECOND_KEY });
    expect(await keySentThrough(gw, 'from-api')).toBe(`Bearer ${API_HELD}`);
    await gw.close();
    gw = undefined;
    await expect(start({ key: FIRST_KEY })).rejects.toThrow(/from-api.*cannot be read/);
    await expect(start(undefined)).rejects.toThrow(/secrets\.key/);
  });

  it('deletes a credential made through the API', async () => {
    gw = await start({ key: SECOND_KEY });
    const deleted = await call(`${gw.url}/v1/admin/credentials/from-api`, 'DELETE');
    expect(deleted.status).toBe(200);
    expect(deleted.text).not.toContain(API_HELD);
    expect(storedRows(dbPath)).toEqual([]);
    const res = await post(gw.url, CHAT, chatBody(), { authorization: `Bearer ${await gatewayKey(gw)}`, 'x-gateway-config': JSON.stringify({ credential: 'from-api' }) });
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain('names no credential');
  });

  it('keeps each credential write in the audit log, without the value', async () => {
    const audit = await call(`${gw!.url}/v1/admin/audit?resource=credential`, 'GET');
    expect(audit.status).toBe(200);
    const entries = audit.json.data.filter((e: any) => e.resource_id === 'from-api');
    expect(entries.map((e: any) => e.action).sort()).toEqual(['credential.create', 'credential.delete']);
    const created = entries.find((e: any) => e.action === 'credential.create');
    expect(created).toMatchObject({ resource: 'credential', before: null, after: expect.objectContaining({ name: 'from-api', provider: 'openai' }) });
    const deleted = entries.find((e: any) => e.action === 'credential.delete');
    expect(deleted).toMatchObject({ before: expect.objectContaining({ name: 'from-api' }), after: null });
    expect(audit.text).not.toContain(API_HELD);
    expect(audit.text).not.toContain(API_HELD.slice(0, -4));
  });

  it('refuses at start-up a config credential with a field its provider does not declare, naming the key', async () => {
    await expect(
      startGateway({
        providers: { openai: { baseUrl: `${upstream.url}/v1` } },
        credentials: { odd: { provider: 'openai', api_key: 'sk-x-0123456789', vertex_region: 'us-central1' } },
      }),
    ).rejects.toThrow(/credentials\.odd\.vertex_region: is not a field of provider openai/);
  });
});
