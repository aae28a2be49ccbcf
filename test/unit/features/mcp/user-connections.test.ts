import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../../src/kernel/store/sqlite/sqlite-store.js';
import { PostgresStore } from '../../../../src/kernel/store/postgres/postgres-store.js';
import type { SqlStore } from '../../../../src/kernel/store/sql-store.js';
import { dropSharedState, PG_URL } from '../../../helpers/shared-stores.js';
import { createLogger } from '../../../../src/kernel/observability/logger.js';
import { SecretBox } from '../../../../src/features/governance/credentials/secret-box.js';
import { CONNECTION_MIGRATIONS, ConnectionStore } from '../../../../src/features/mcp/connections/connection-store.js';
import { UserConnections } from '../../../../src/features/mcp/connections/user-connections.js';
import { eventually } from '../../../helpers/mcp.js';

/** A token endpoint that answers refresh requests only once released. */
function gatedTokenEndpoint() {
  const seen: URLSearchParams[] = [];
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const http: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      seen.push(new URLSearchParams(text));
      void released.then(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ access_token: `fresh-${seen.length}`, refresh_token: `refresh-${seen.length}`, expires_in: 3600 }));
      });
    });
  });
  return { http, seen, release };
}

describe.each(['sqlite', 'postgres'] as const)('UserConnections: one refresh for concurrent callers (%s)', (kind) => {
  let dir: string;
  const schema = `gw_conn_${randomBytes(6).toString('hex')}`;
  let sql: SqlStore;
  let endpoint: ReturnType<typeof gatedTokenEndpoint>;
  let url = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-conn-'));
    if (kind === 'sqlite') sql = new SqliteStore(join(dir, 'gateway.db'));
    else {
      const pg = new PostgresStore(PG_URL, schema);
      await pg.open();
      sql = pg;
    }
    await sql.migrate(CONNECTION_MIGRATIONS);
    endpoint = gatedTokenEndpoint();
    await new Promise<void>((r) => endpoint.http.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(endpoint.http.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => endpoint.http.close(() => r()));
    await sql.close();
    if (kind === 'postgres') await dropSharedState('postgres', '', schema);
    rmSync(dir, { recursive: true, force: true });
  });

  it('two calls that find the token about to expire share one request to the token endpoint, and get the new token', async () => {
    const box = new SecretBox([randomBytes(32)]);
    const sealer = { seal: (p: string) => box.encrypt(p), open: (s: string) => box.decrypt(s)?.plain };
    const store = new ConnectionStore(sql);
    const auth = { upstream: 'per_user_oauth' as const, authorizationEndpoint: `${url}/authorize`, tokenEndpoint: `${url}/token`, clientId: 'c' };
    const hub = new UserConnections(store, () => sealer, new Map([['tools', { auth, url: 'http://127.0.0.1:1/mcp' }]]), createLogger('silent'));
    // A connection whose access token expires in 10 s (refreshed a minute ahead).
    await store.save(
      { owner: 'token:u1', server: 'tools', tokens: sealer.seal(JSON.stringify({ access: 'stale', refresh: 'refresh-0' })), scope: null, expiresAt: Date.now() + 10_000 },
      Date.now(),
    );
    const first = hub.accessToken('tools', 'token:u1', 'http://gw');
    const second = hub.accessToken('tools', 'token:u1', 'http://gw');
    await eventually(() => endpoint.seen.length === 1, 5000, 'the refresh request');
    endpoint.release();
    expect(await Promise.all([first, second])).toEqual(['fresh-1', 'fresh-1']);
    expect(endpoint.seen).toHaveLength(1);
    expect(endpoint.seen[0]!.get('grant_type')).toBe('refresh_token');
    expect(endpoint.seen[0]!.get('refresh_token')).toBe('refresh-0');
    // Kept sealed, with the rotated refresh token; the next call uses it as it is.
    expect(await hub.accessToken('tools', 'token:u1', 'http://gw')).toBe('fresh-1');
    const row = await store.get('token:u1', 'tools');
    expect(row!.tokens).not.toContain('fresh-1');
    expect(JSON.parse(sealer.open(row!.tokens)!)).toEqual({ access: 'fresh-1', refresh: 'refresh-1' });
    expect(endpoint.seen).toHaveLength(1);
  });

  it('a connect link’s state is taken once; the connection is listed without tokens and removed once', async () => {
    const box = new SecretBox([randomBytes(32)]);
    const sealer = { seal: (p: string) => box.encrypt(p), open: (s: string) => box.decrypt(s)?.plain };
    const auth = { upstream: 'per_user_oauth' as const, authorizationEndpoint: `${url}/authorize`, tokenEndpoint: `${url}/token`, clientId: 'c' };
    const hub = new UserConnections(new ConnectionStore(sql), () => sealer, new Map([['tools', { auth, url: 'http://127.0.0.1:1/mcp' }]]), createLogger('silent'));
    const link = new URL(await hub.connectUrl('tools', 'token:u2', 'http://gw'));
    expect(link.searchParams.get('redirect_uri')).toBe('http://gw/oauth/upstream/callback');
    const state = link.searchParams.get('state')!;
    expect(await hub.complete(new URLSearchParams({ state, code: 'code-1' }))).toEqual({ server: 'tools' });
    const traded = endpoint.seen.at(-1)!;
    expect(traded.get('grant_type')).toBe('authorization_code');
    expect(traded.get('redirect_uri')).toBe('http://gw/oauth/upstream/callback');
    expect(traded.get('client_id')).toBe('c');
    await expect(hub.complete(new URLSearchParams({ state, code: 'code-1' }))).rejects.toMatchObject({ status: 400, param: 'state' });
    const own = await hub.list('token:u2');
    expect(own).toEqual([expect.objectContaining({ object: 'mcp.connection', server: 'tools', refreshable: true })]);
    expect(JSON.stringify(await hub.list(undefined))).not.toMatch(/fresh-|refresh-/);
    expect((await hub.list(undefined)).map((c) => c.owner)).toContain('token:u2');
    expect(await hub.disconnect('token:u2', 'tools')).toBe(true);
    expect(await hub.disconnect('token:u2', 'tools')).toBe(false);
  });
});
