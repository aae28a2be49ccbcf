// A gateway key in use is hashed once (token-service.ts, rememberHash), and that changes nothing
// the store decides: a revoked or rotated key is refused at its next request as before.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqliteStore } from '../../../../src/kernel/store/sqlite/sqlite-store.js';
import { TOKEN_MIGRATIONS, TokenStore } from '../../../../src/features/auth/token-store.js';
import { TokenService } from '../../../../src/features/auth/token-service.js';

const hashed = vi.hoisted(() => ({ values: [] as string[] }));
vi.mock('../../../../src/features/auth/secrets.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../../src/features/auth/secrets.js')>();
  return {
    ...actual,
    hashSecret: (value: string) => {
      hashed.values.push(value);
      return actual.hashSecret(value);
    },
  };
});

describe('gateway key checks hash a key in use once', () => {
  let dir: string;
  let store: SqliteStore;
  let service: TokenService;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'token-hash-'));
    store = new SqliteStore(join(dir, 'gateway.db'));
    await store.migrate(TOKEN_MIGRATIONS);
    service = new TokenService(new TokenStore(store), '30d');
    hashed.values.length = 0;
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('hashes a known key on its first check only; made-up keys every time', async () => {
    const { token } = await service.create({ user: 'ada@example.com' } as never);
    hashed.values.length = 0;
    for (let i = 0; i < 5; i++) expect((await service.check(token!)).ok).toBe(true);
    expect(hashed.values.filter((v) => v === token)).toHaveLength(1);
    const madeUp = `${token!.slice(0, -4)}zzzz`;
    for (let i = 0; i < 3; i++) expect(await service.check(madeUp)).toEqual({ ok: false, reason: 'unknown' });
    expect(hashed.values.filter((v) => v === madeUp)).toHaveLength(3);
  });

  it('a revoked key is refused at its next check', async () => {
    const created = await service.create({ user: 'ada@example.com' } as never);
    expect((await service.check(created.token!)).ok).toBe(true);
    await service.revoke(created.id);
    expect(await service.check(created.token!)).toEqual({ ok: false, reason: 'revoked' });
  });

  it('a rotated key without grace is refused; the new value opens', async () => {
    const created = await service.create({ user: 'ada@example.com' } as never);
    expect((await service.check(created.token!)).ok).toBe(true);
    const { resource } = await service.rotate(created.id, 0);
    expect((await service.check(created.token!)).ok).toBe(false);
    expect((await service.check(resource!.token!)).ok).toBe(true);
  });
});
