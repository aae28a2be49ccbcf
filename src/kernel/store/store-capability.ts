import type { Capability } from '../capability.js';
import { defineService, type GatewayServices } from '../engine/services.js';
import type { Migration, SqlStore } from './sql-store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';

/** The store of this gateway (set up by the store capability, first in the list). */
export const STORE = defineService<SqlStore>('store');

export function getStore(services: GatewayServices): SqlStore {
  return services.require(STORE);
}

/** The optional migrations already told as missing, per store object (one warning each, not one per reload). */
const toldMissing = new WeakMap<SqlStore, Set<string>>();

/**
 * Applies `migrations` to the gateway's store (see SqlStore.migrate); an optional one that could
 * not be applied is told once per store with a warning that says what the gateway does without
 * it (the next start tries it again).
 */
export async function migrateStore(services: GatewayServices, migrations: Migration[]): Promise<void> {
  const store = getStore(services);
  const { skipped } = await store.migrate(migrations);
  let told = toldMissing.get(store);
  for (const { id, without, error } of skipped) {
    if (!told) toldMissing.set(store, (told = new Set()));
    if (told.has(id)) continue;
    told.add(id);
    services.logger.warn({ migration: id, err: error }, `store migration ${id} could not be applied: ${without}`);
  }
}

/** Opens the configured store (storage.type) once at start-up and closes it last at shutdown. */
export const storeCapability: Capability = {
  name: 'store',
  async setup(services) {
    const storage = services.config.storage ?? {};
    // The PostgreSQL client is loaded only by a gateway that uses it.
    const Postgres = storage.type === 'postgres' ? (await import('./postgres/postgres-store.js')).PostgresStore : undefined;
    // Kept across a reload while storage.* is unchanged (closed when the config that opened it retires).
    const store: SqlStore = services.resources.keep(
      'store',
      storage,
      () => (Postgres ? new Postgres(storage.url!, storage.schema) : new SqliteStore(storage.path ?? './data/gateway.db')),
      (s) => s.close(),
    );
    if (Postgres && store instanceof Postgres && !services.resources.wasKept('store')) await store.open();
    services.provide(STORE, store);
    services.readiness.set('store', () => true);
  },
};
