import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { LogCollector, startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { buildConfig } from '../../../src/kernel/config/load-config.js';
import { createGateway } from '../../../src/gateway.js';
import { rawPost } from '../../helpers/mcp.js';

const PG_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ADMIN = 'admin-token-0123456789abcdef0123456789';
const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
const auth = { enabled: true, type: 'bearer', adminToken: ADMIN };

async function issue(url: string, user: string): Promise<{ id: string; token: string }> {
  const res = await fetch(`${url}/v1/auth/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ user }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; token: string };
}

describe('tokens on PostgreSQL shared by two gateway instances', () => {
  const schema = `gw_tokens_${randomBytes(6).toString('hex')}`;
  let a: TestGateway;
  let b: TestGateway;

  beforeAll(async () => {
    const storage = { type: 'postgres', url: PG_URL, schema };
    a = await startGateway({ auth, storage });
    b = await startGateway({ auth, storage });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  });

  it('a token issued on one instance works on the other; revoked on one, it fails at once on the other', async () => {
    const t = await issue(a.url, 'shared-user');
    expect((await rawPost(`${b.url}/mcp`, list, { authorization: `Bearer ${t.token}` })).status).toBe(200);
    const revoke = await fetch(`${a.url}/v1/auth/tokens/${t.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN}` } });
    expect(revoke.status).toBe(200);
    const after = await rawPost(`${b.url}/mcp`, list, { authorization: `Bearer ${t.token}` });
    expect(after.status).toBe(401);
    expect(after.json.error.message).toMatch(/revoked/);
  });

  it('a rotation on one instance ends the old value on the other at once', async () => {
    const t = await issue(b.url, 'rotating-user');
    expect((await rawPost(`${a.url}/mcp`, list, { authorization: `Bearer ${t.token}` })).status).toBe(200);
    const rotated = (await (await fetch(`${b.url}/v1/auth/tokens/${t.id}/rotate`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}` } })).json()) as { token: string };
    expect((await rawPost(`${a.url}/mcp`, list, { authorization: `Bearer ${t.token}` })).status).toBe(401);
    expect((await rawPost(`${a.url}/mcp`, list, { authorization: `Bearer ${rotated.token}` })).status).toBe(200);
  });

  it('stores hashes, never token values', async () => {
    const t = await issue(a.url, 'hash-check');
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    const rows = await client.query(`SELECT * FROM "${schema}".gateway_auth_tokens WHERE id = $1`, [t.id]);
    await client.end();
    expect(rows.rows).toHaveLength(1);
    expect(JSON.stringify(rows.rows)).not.toContain(t.token);
    expect(rows.rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('tokens survive a restart (SQLite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-restart-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  /** A gateway on the same data folder each time (startGateway makes a fresh one per start). */
  async function start() {
    const config = buildConfig({ auth, logging: { level: 'warn' } }, 'test', { env: { ...process.env, GATEWAY_DATA_DIR: dataDir } });
    const gateway = await createGateway(config, { logDestination: new LogCollector() });
    const url = await gateway.listen(0, '127.0.0.1');
    return { gateway, url };
  }

  it('a token issued before a restart still works after it', async () => {
    const first = await start();
    const t = await issue(first.url, 'durable');
    await first.gateway.close(1000);
    const second = await start();
    try {
      expect((await rawPost(`${second.url}/mcp`, list, { authorization: `Bearer ${t.token}` })).status).toBe(200);
      const listed = (await (await fetch(`${second.url}/v1/auth/tokens`, { headers: { authorization: `Bearer ${ADMIN}` } })).json()) as any;
      expect(listed.data.map((x: any) => x.id)).toContain(t.id);
    } finally {
      await second.gateway.close(1000);
    }
  });
});
