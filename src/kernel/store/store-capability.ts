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
    let store: SqlStore;
    if (storage.type === 'postgres') {
      // The PostgreSQL client is loaded only by a gateway that uses it.
      const { PostgresStore } = await import('./postgres/postgres-store.js');
      const postgres = new PostgresStore(storage.url!, storage.schema);
      await postgres.open();
      store = postgres;
    } else {
      store = new SqliteStore(storage.path ?? './data/gateway.db');
    }
    services.provide(STORE, store);
    services.readiness.set('store', () => true);
    services.closers.push(() => store.close());
  },
};
