import type { Capability } from '../capability.js';
import { getExtension, type GatewayServices } from '../engine/services.js';
import type { SqlStore } from './sql-store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import { PostgresStore } from './postgres/postgres-store.js';

export const STORE_EXTENSION = 'store';

/** The store of this gateway (set up by the store capability, first in the list). */
export function getStore(services: GatewayServices): SqlStore {
  const store = getExtension<SqlStore>(services, STORE_EXTENSION);
  if (!store) throw new Error('the store capability is not set up');
  return store;
}

/** Opens the configured store (storage.type) once at start-up and closes it last at shutdown. */
export const storeCapability: Capability = {
  name: 'store',
  async setup(services) {
    const storage = services.config.storage ?? {};
    const store: SqlStore =
      storage.type === 'postgres' ? new PostgresStore(storage.url!, storage.schema) : new SqliteStore(storage.path ?? './data/gateway.db');
    if (store instanceof PostgresStore) await store.query('SELECT 1');
    services.extensions.set(STORE_EXTENSION, store);
    services.readiness.set('store', () => true);
    services.closers.push(() => store.close());
  },
};
