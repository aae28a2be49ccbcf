// Token lookups kept in memory on SQLite (token-store.ts): kept only while no other process has
// written to the file and nothing was written here; a revocation anywhere is seen at the next lookup.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqliteStore } from '../../../../src/kernel/store/sqlite/sqlite-store.js';
import { TOKEN_MIGRATIONS, TokenStore, type TokenRecord } from '../../../../src/features/auth/token-store.js';

const NOW = 1_800_000_000;

function record(id: string): TokenRecord {
  return {
    id,
    user: `${id}@example.com`,
    team: null,
    email: null,
    name: null,
    roles: null,
    organization: null,
    scopes: ['mcp'],
    permissions: null,
    createdAt: NOW,
    expiresAt: null,
    revokedAt: null,
    rotatedAt: null,
    models: null,
    limits: null,
    budgets: null,
    metadata: null,
    blockedAt: null,
    previousUntil: null,
  };
}

describe('token lookups on SQLite', () => {
  let dir: string;
  let here: SqliteStore;
  let otherProcess: SqliteStore;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'token-cache-'));
    // Two connections to one file: this process and another worker.
    here = new SqliteStore(join(dir, 'gateway.db'));
    otherProcess = new SqliteStore(join(dir, 'gateway.db'));
    await here.migrate(TOKEN_MIGRATIONS);
  });

  afterEach(async () => {
    await here.close();
    await otherProcess.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a second lookup reads nothing while nothing has changed', async () => {
    const tokens = new TokenStore(here);
    await tokens.insert(record('k1'), 'hash-1');
    expect((await tokens.findByHash('hash-1', NOW))?.id).toBe('k1');
    const reads = vi.spyOn(here, 'query');
    expect((await tokens.findByHash('hash-1', NOW))?.id).toBe('k1');
    expect(reads).not.toHaveBeenCalled();
  });

  it('a revocation by another process is seen at the next lookup (from the next turn of the event loop)', async () => {
    const tokens = new TokenStore(here);
    await tokens.insert(record('k1'), 'hash-1');
    expect((await tokens.findByHash('hash-1', NOW))?.revokedAt).toBeNull();
    await new TokenStore(otherProcess).revoke('k1', NOW + 1);
    // Another process's commit reaches this one through I/O, so a later turn: the file's version is read once per turn.
    await new Promise((turn) => setImmediate(turn));
    expect((await tokens.findByHash('hash-1', NOW + 2))?.revokedAt).toBe(NOW + 1);
  });

  it('a block through another TokenStore of this process is seen at the next lookup', async () => {
    const tokens = new TokenStore(here);
    await tokens.insert(record('k1'), 'hash-1');
    expect((await tokens.findByHash('hash-1', NOW))?.blockedAt).toBeNull();
    await new TokenStore(here).setBlocked('k1', NOW + 1);
    expect((await tokens.findByHash('hash-1', NOW + 2))?.blockedAt).toBe(NOW + 1);
  });

  it('a value replaced by a rotation works from the cache only until its grace period ends', async () => {
    const tokens = new TokenStore(here);
    await tokens.insert(record('k1'), 'hash-old');
    expect(await tokens.rotate('k1', 'hash-new', NOW, null, NOW + 60)).toBe(true);
    expect((await tokens.findByHash('hash-old', NOW + 10))?.id).toBe('k1');
    expect((await tokens.findByHash('hash-old', NOW + 10))?.id).toBe('k1');
    expect(await tokens.findByHash('hash-old', NOW + 61)).toBeUndefined();
    expect((await tokens.findByHash('hash-new', NOW + 61))?.id).toBe('k1');
  });
});
