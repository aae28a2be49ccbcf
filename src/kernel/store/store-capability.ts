import type { Capability } from '../capability.js';
import { defineService, type GatewayServices } from '../engine/services.js';
import type { SqlStore } from './sql-store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';

/** The store of this gateway (set up by the store capability, first in the list). */
export const STORE = defineService<SqlStore>('store');

export function getStore(services: GatewayServices): SqlStore {
  return services.require(STORE);
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
