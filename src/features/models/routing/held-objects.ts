import type { GatewayContext } from '../../../kernel/engine/context.js';
import { defineService } from '../../../kernel/engine/services.js';
import type { Migration, SqlStore } from '../../../kernel/store/sql-store.js';
import { credentialTenant } from '../model-request.js';

/** What a provider keeps for a key: files, batches, fine-tuning jobs, responses. */
export type HeldObjectKind = 'file' | 'batch' | 'fine_tuning.job' | 'response';

/** The table of the objects made at a provider on a key the gateway holds, and who made each (portable SQL). */
export const HELD_OBJECTS_MIGRATIONS: Migration[] = [
  {
    id: 'held-objects-001-create',
    statements: [
      `CREATE TABLE IF NOT EXISTS gateway_held_objects (
        kind TEXT NOT NULL,
        provider TEXT NOT NULL,
        id TEXT NOT NULL,
        owner TEXT NOT NULL,
        created_ms BIGINT NOT NULL,
        PRIMARY KEY (kind, provider, id)
      )`,
    ],
  },
];

/**
 * Who owns what a provider keeps for a key the gateway holds (a held credential,
 * providers.<id>.apiKey, an operator config's key). The provider sees one account for every
 * tenant that key serves, so its lists, reads and deletes would reach every tenant's objects:
 * the gateway records the gateway credential that made each object and answers for the others
 * as for an unknown id. An id is owned by the first credential recorded for it.
 */
export class HeldObjects {
  constructor(private readonly store: SqlStore) {}

  async record(kind: HeldObjectKind, provider: string, id: string, owner: string): Promise<void> {
    await this.store.execute('INSERT INTO gateway_held_objects (kind, provider, id, owner, created_ms) VALUES (?, ?, ?, ?, ?) ON CONFLICT (kind, provider, id) DO NOTHING', [
      kind,
      provider,
      id,
      owner,
      Date.now(),
    ]);
  }

  /** Whether `owner` made the object `id`. */
  async owns(kind: HeldObjectKind, provider: string, id: string, owner: string): Promise<boolean> {
    const rows = await this.store.query<{ owner: string }>('SELECT owner FROM gateway_held_objects WHERE kind = ? AND provider = ? AND id = ?', [kind, provider, id]);
    return rows[0]?.owner === owner;
  }

  /** Which of `ids` `owner` made. */
  async ownedOf(kind: HeldObjectKind, provider: string, owner: string, ids: readonly string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows = await this.store.query<{ id: string }>(
      `SELECT id FROM gateway_held_objects WHERE kind = ? AND provider = ? AND owner = ? AND id IN (${ids.map(() => '?').join(', ')})`,
      [kind, provider, owner, ...ids],
    );
    return new Set(rows.map((r) => r.id));
  }

  async forget(kind: HeldObjectKind, provider: string, id: string): Promise<void> {
    await this.store.execute('DELETE FROM gateway_held_objects WHERE kind = ? AND provider = ? AND id = ?', [kind, provider, id]);
  }
}

/** The owner of what a request makes on a held key: its gateway credential (a held key serves no request without one). */
export function heldObjectOwner(ctx: GatewayContext): string | undefined {
  const tenant = credentialTenant(ctx);
  return tenant === undefined ? undefined : `identity:${tenant}`;
}

/** The registry of objects made on held keys (provided by the responses capability, used by the files, batches and fine-tuning routes too). */
export const HELD_OBJECTS = defineService<HeldObjects>('held-objects');
