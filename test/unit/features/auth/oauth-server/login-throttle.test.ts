import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../../../src/kernel/store/sqlite/sqlite-store.js';
import { PostgresStore } from '../../../../../src/kernel/store/postgres/postgres-store.js';
import type { SqlStore } from '../../../../../src/kernel/store/sql-store.js';
import { randomBytes } from 'node:crypto';
import { dropSharedState, PG_URL } from '../../../../helpers/shared-stores.js';
import { OAUTH_SERVER_MIGRATIONS, OAuthServerStore } from '../../../../../src/features/auth/oauth-server/as-store.js';
import { clientKey, LoginThrottle } from '../../../../../src/features/auth/oauth-server/login-throttle.js';
import { GatewayError } from '../../../../../src/contract/errors/gateway-error.js';

describe.each(['sqlite', 'postgres'] as const)('failed logins at /oauth/login are limited per client address in a window (%s)', (kind) => {
  let dir: string;
  const schema = `gw_throttle_${randomBytes(6).toString('hex')}`;
  let sql: SqlStore;
  let store: OAuthServerStore;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-throttle-'));
    if (kind === 'sqlite') sql = new SqliteStore(join(dir, 'gateway.db'));
    else {
      const pg = new PostgresStore(PG_URL, schema);
      await pg.open();
      sql = pg;
    }
    await sql.migrate(OAUTH_SERVER_MIGRATIONS);
    store = new OAuthServerStore(sql);
  });
  afterAll(async () => {
    await sql.close();
    if (kind === 'postgres') await dropSharedState('postgres', '', schema);
    rmSync(dir, { recursive: true, force: true });
  });

  const refusal = (p: Promise<void>) =>
    p.then(
      () => undefined,
      (err: unknown) => err as GatewayError,
    );

  it('past max failures the address is refused with 429 and Retry-After until the window ends; other addresses are not', async () => {
    const throttle = new LoginThrottle(store, 3, 600);
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i++) {
      await throttle.check('10.0.0.1', t0 + i);
      await throttle.failed('10.0.0.1', t0 + i);
    }
    const refused = await refusal(throttle.check('10.0.0.1', t0 + 10));
    expect(refused).toBeInstanceOf(GatewayError);
    expect(refused!.status).toBe(429);
    expect(refused!.code).toBe('rate_limit_exceeded');
    expect(refused!.headers).toEqual({ 'retry-after': '590' });
    expect(await refusal(throttle.check('10.0.0.2', t0 + 10))).toBeUndefined();
    // The window began with the first failure and ends 600 s later: then the address may try again, counted afresh.
    expect(await refusal(throttle.check('10.0.0.1', t0 + 599))).toBeInstanceOf(GatewayError);
    expect(await refusal(throttle.check('10.0.0.1', t0 + 600))).toBeUndefined();
    await throttle.failed('10.0.0.1', t0 + 600);
    expect(await store.loginFailures(clientKey('10.0.0.1'), t0 + 601)).toEqual({ failures: 1, windowEnds: t0 + 1200 });
  });

  it('the store keeps no client address, only its hash', async () => {
    const rows = await sql.query<{ client_hash: string }>('SELECT client_hash FROM gateway_oauth_login_failures');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.client_hash).not.toContain('10.0.0');
  });
});
