import { defineService } from '../engine/services.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
/** The store of this gateway (set up by the store capability, first in the list). */
export const STORE = defineService('store');
export function getStore(services) {
    return services.require(STORE);
}
/** Opens the configured store (storage.type) once at start-up and closes it last at shutdown. */
export const storeCapability = {
    name: 'store',
    async setup(services) {
        const storage = services.config.storage ?? {};
        let store;
        if (storage.type === 'postgres') {
            // The PostgreSQL client is loaded only by a gateway that uses it.
            const { PostgresStore } = await import('./postgres/postgres-store.js');
            const postgres = new PostgresStore(storage.url, storage.schema);
            await postgres.open();
            store = postgres;
        }
        else {
            store = new SqliteStore(storage.path ?? './data/gateway.db');
        }
        services.provide(STORE, store);
        services.readiness.set('store', () => true);
        services.closers.push(() => store.close());
    },
};
//# sourceMappingURL=store-capability.js.map