import type { Migration } from '../../../kernel/store/sql-store.js';

/** Tables of the budget ledger on SQLite or PostgreSQL (without Redis). */
export const BUDGET_MIGRATIONS: Migration[] = [
  {
    id: 'budgets-001-create',
    statements: [
      // Settled spend per budget, window series and window index (a new window is a new row: nothing is ever reset).
      `CREATE TABLE gateway_budget_spend (
        budget_id TEXT NOT NULL,
        series TEXT NOT NULL,
        idx BIGINT NOT NULL,
        micros BIGINT NOT NULL,
        tokens BIGINT NOT NULL,
        PRIMARY KEY (budget_id, series, idx)
      )`,
      // Live reservations, one row per budget they hold; expired ones stop counting and are purged.
      `CREATE TABLE gateway_budget_reservations (
        budget_id TEXT NOT NULL,
        reservation_id TEXT NOT NULL,
        micros BIGINT NOT NULL,
        tokens BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        PRIMARY KEY (budget_id, reservation_id)
      )`,
      'CREATE INDEX gateway_budget_reservations_expiry ON gateway_budget_reservations (budget_id, expires_at)',
      'CREATE INDEX gateway_budget_reservations_id ON gateway_budget_reservations (reservation_id)',
      // Alerts sent: one row per (budget, window, threshold), so each is sent once across instances.
      `CREATE TABLE gateway_budget_alerts (
        budget_id TEXT NOT NULL,
        series TEXT NOT NULL,
        idx BIGINT NOT NULL,
        percent DOUBLE PRECISION NOT NULL,
        sent_at BIGINT NOT NULL,
        PRIMARY KEY (budget_id, series, idx, percent)
      )`,
      // Reservations settled (a day): a settle tried again after a timeout is not counted twice.
      'CREATE TABLE gateway_budget_settled (reservation_id TEXT PRIMARY KEY, settled_at BIGINT NOT NULL)',
      'CREATE INDEX gateway_budget_settled_at ON gateway_budget_settled (settled_at)',
    ],
  },
];
