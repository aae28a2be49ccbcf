import type { TenantStore } from './tenant-store.js';
import { StoreReading } from './store-reading.js';

/** The catalogue models each team of the admin API bounds its keys to (no entry, or undefined: no bound). */
export type ApiTeamModels = ReadonlyMap<string, readonly string[] | undefined>;

/**
 * Teams made through /v1/admin/teams, as the request path reads their `models` (what the team's
 * keys may use at most): read from the store at most once per `ttlMs`, at once after a write on
 * this instance.
 */
export class ApiTeams extends StoreReading<ApiTeamModels> {
  constructor(store: TenantStore, ttlMs = 5000) {
    super(
      () =>
        store.list('team').then((rows) => {
          const models = new Map<string, readonly string[] | undefined>();
          for (const row of rows) {
            const list = (row.data as { models?: unknown }).models;
            models.set(row.id, Array.isArray(list) ? Object.freeze(list.filter((m): m is string => typeof m === 'string')) : undefined);
          }
          return models;
        }),
      ttlMs,
    );
  }
}
