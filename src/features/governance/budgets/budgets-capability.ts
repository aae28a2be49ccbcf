import type { Capability } from '../../../kernel/capability.js';
import { ConfigError } from '../../../kernel/config/load-config.js';
import { defineService, type GatewayServices } from '../../../kernel/engine/services.js';
import { kernelRedis, redisKeyPrefix, redisReady } from '../../../kernel/store/redis-client.js';
import { getStore } from '../../../kernel/store/store-capability.js';
import type { BudgetLedger } from '../governance-types.js';
import { alertSink } from './budget-alerts.js';
import { LedgerOverBackend } from './budget-ledger.js';
import { LeasedLedger } from './budget-leases.js';
import { BUDGET_MIGRATIONS } from './budget-migrations.js';
import { indexConfigBudgets, type ConfigBudgetIndex } from './applicable-budgets.js';
import { isTimeZone } from './local-time.js';
import { RedisLedgerBackend } from './redis-ledger-backend.js';
import { SqlLedgerBackend } from './sql-ledger-backend.js';

/** The budget ledger of this gateway (Redis with redis.url, else the SQL store). */
export const BUDGET_LEDGER = defineService<BudgetLedger>('budget-ledger');
/** The config's budgets by scope and subject (see applicableBudgets). */
export const CONFIG_BUDGETS = defineService<ConfigBudgetIndex>('config-budgets');

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000 } as const;

/**
 * How long a ledger call may take before the store counts as down (budgets.storeTimeout): by
 * default 1 s on Redis, which answers each script at once; 5 s on PostgreSQL or SQLite, where
 * the calls on one budget queue behind its lock (a burst on one budget waits its turn there
 * rather than being taken for an outage).
 */
export function storeTimeoutMs(text: string | undefined, redis: boolean): number {
  if (text === undefined) return redis ? 1000 : 5000;
  const m = /^([0-9]+)(ms|s)$/.exec(text);
  if (!m || Number(m[1]) === 0)
    throw new ConfigError([`budgets.storeTimeout must be a positive duration such as "1s" or "500ms" (got ${JSON.stringify(text)})`], 'budgets.storeTimeout');
  return Number(m[1]) * (m[2] === 's' ? 1000 : 1);
}

/** budgets.leases.interval ("500ms", "1s") in ms. */
export function leaseIntervalMs(text: string | undefined): number {
  const m = /^([0-9]+)(ms|s)$/.exec(text ?? '500ms');
  if (!m || Number(m[1]) === 0)
    throw new ConfigError([`budgets.leases.interval must be a positive duration such as "1s" (got ${JSON.stringify(text)})`], 'budgets.leases.interval');
  return Number(m[1]) * (m[2] === 's' ? 1000 : 1);
}

/** budgets.reservationTtl ("30s", "5m", "1h") in ms. */
export function reservationTtlMs(text: string | undefined): number {
  const m = /^([0-9]+)([smh])$/.exec(text ?? '30s');
  if (!m || Number(m[1]) === 0) throw new ConfigError([`budgets.reservationTtl must be a positive duration such as "30s" (got ${JSON.stringify(text)})`], 'budgets.reservationTtl');
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

/** Every budget's time zone must be one Intl knows (checked at start-up, not on the first request). */
function checkTimeZones(services: GatewayServices): void {
  const budgets = services.config.budgets;
  const problems: string[] = [];
  for (const [scope, bySubject] of Object.entries(budgets ?? {})) {
    if (!bySubject || typeof bySubject !== 'object' || Array.isArray(bySubject)) continue;
    for (const [subject, value] of Object.entries(bySubject as Record<string, unknown>)) {
      const list = (Array.isArray(value) ? value : [value]) as Array<{ window?: { timezone?: string } }>;
      list.forEach((b, i) => {
        const zone = b?.window?.timezone;
        if (zone !== undefined && !isTimeZone(zone))
          problems.push(`budgets.${scope}.${subject}${Array.isArray(value) ? `[${i}]` : ''}.window.timezone: unknown time zone ${JSON.stringify(zone)}`);
      });
    }
  }
  if (problems.length) throw new ConfigError(problems, 'budgets');
}

/** Budgets: the ledger (reserve → settle across instances), its tables, and the config's budgets. */
export const budgetsCapability: Capability = {
  name: 'budgets',
  async setup(services) {
    const config = services.config.budgets ?? {};
    const ttlMs = reservationTtlMs(config.reservationTtl);
    checkTimeZones(services);
    services.provide(CONFIG_BUDGETS, indexConfigBudgets(config));
    const redis = await kernelRedis(services);
    if (!redis) await getStore(services).migrate(BUDGET_MIGRATIONS);
    // With budgets configured, the first requests find the client connected (a Redis that is down answers storeDown meanwhile).
    else if (services.config.budgets) await redisReady(redis, 2000);
    const timeoutMs = storeTimeoutMs(config.storeTimeout, redis !== undefined);
    const leases = { requests: config.leases?.requests ?? 64, share: config.leases?.share ?? 0.25, intervalMs: leaseIntervalMs(config.leases?.interval) };
    const settings = {
      redis: redis ? services.config.redis : undefined,
      storage: redis ? undefined : services.config.storage,
      ttlMs,
      timeoutMs,
      webhook: config.alertWebhook,
      leases,
    };
    // Kept across a reload with the same settings: its live reservations stay alive.
    const ledger = services.resources.keep(
      'budget-ledger',
      settings,
      () => {
        const store = new LedgerOverBackend(redis ? new RedisLedgerBackend(redis, redisKeyPrefix(services)) : new SqlLedgerBackend(getStore(services)), {
          ttlMs,
          timeoutMs,
          logger: services.logger,
          alerts: alertSink(services.logger, config.alertWebhook),
        });
        return leases.requests > 0 ? new LeasedLedger(store, leases) : store;
      },
      (l) => l.close(),
    );
    services.provide(BUDGET_LEDGER, ledger);
  },
};
