import type { SqlStore } from '../../../kernel/store/sql-store.js';

/**
 * The budget ledger's reserve and settle on PostgreSQL as one function call each: the advisory
 * locks, the reads and the writes run inside the server, so the locks are held for no network
 * round trip, and each call is one statement (its own transaction). Each statement of a
 * PL/pgSQL function reads a fresh snapshot (READ COMMITTED), so what is read after the locks
 * includes every change committed under them. The transactions commit without waiting for the
 * WAL flush (synchronous_commit off, for these transactions only): a PostgreSQL crash may lose
 * the last fraction of a second of budget changes, never leave them half made.
 *
 * The names carry a version: a changed body gets a new name, so instances of two versions
 * sharing one schema each call their own.
 */
export const RESERVE_FUNCTION = 'gateway_budget_reserve_v1';
export const SETTLE_FUNCTION = 'gateway_budget_settle_v1';

const LOCKS = `PERFORM set_config('synchronous_commit', 'off', true);
  -- Locks in hash order: two calls never wait on each other crosswise.
  PERFORM pg_advisory_xact_lock(h) FROM (SELECT DISTINCT hashtext(x) AS h FROM unnest(p_ids) AS x) AS s ORDER BY h;`;

const RESERVE = `CREATE OR REPLACE FUNCTION ${RESERVE_FUNCTION}(
  p_ids text[], p_series text[], p_from bigint[], p_to bigint[], p_block boolean[], p_limit_micros bigint[], p_limit_tokens bigint[],
  p_reservation text, p_micros bigint, p_tokens bigint, p_expires bigint, p_clock bigint)
RETURNS TABLE (refused integer, oldest bigint, used_micros bigint[]) LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  used bigint[] := '{}';
  spent_m bigint; spent_t bigint; res_m bigint; res_t bigint; old bigint;
BEGIN
  ${LOCKS}
  DELETE FROM gateway_budget_reservations WHERE budget_id = ANY (p_ids) AND expires_at <= p_clock;
  FOR i IN 1 .. coalesce(array_length(p_ids, 1), 0) LOOP
    SELECT coalesce(sum(micros), 0), coalesce(sum(tokens), 0), coalesce(min(idx) FILTER (WHERE micros > 0 OR tokens > 0), -1)
      INTO spent_m, spent_t, old
      FROM gateway_budget_spend WHERE budget_id = p_ids[i] AND series = p_series[i] AND idx BETWEEN p_from[i] AND p_to[i];
    SELECT coalesce(sum(micros), 0), coalesce(sum(tokens), 0) INTO res_m, res_t
      FROM gateway_budget_reservations WHERE budget_id = p_ids[i] AND expires_at > p_clock;
    used := used || (spent_m + res_m);
    IF p_block[i] AND ((p_limit_micros[i] IS NOT NULL AND spent_m + res_m + p_micros > p_limit_micros[i])
        OR (p_limit_tokens[i] IS NOT NULL AND spent_t + res_t + p_tokens > p_limit_tokens[i])) THEN
      RETURN QUERY SELECT i - 1, old, NULL::bigint[];
      RETURN;
    END IF;
  END LOOP;
  INSERT INTO gateway_budget_reservations (budget_id, reservation_id, micros, tokens, expires_at)
    SELECT DISTINCT x, p_reservation, p_micros, p_tokens, p_expires FROM unnest(p_ids) AS x;
  RETURN QUERY SELECT -1, -1::bigint, used;
END
$fn$`;

const SETTLE = `CREATE OR REPLACE FUNCTION ${SETTLE_FUNCTION}(
  p_ids text[], p_series text[], p_from bigint[], p_to bigint[],
  p_reservation text, p_micros bigint, p_tokens bigint, p_clock bigint, p_sweep_before bigint)
RETURNS TABLE (first boolean, spent_micros bigint[], spent_tokens bigint[], used_micros bigint[]) LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  added integer;
  sm bigint[] := '{}'; st bigint[] := '{}'; um bigint[] := '{}';
  spent_m bigint; spent_t bigint; res_m bigint;
BEGIN
  ${LOCKS}
  IF p_sweep_before IS NOT NULL THEN
    DELETE FROM gateway_budget_settled WHERE settled_at < p_sweep_before;
  END IF;
  INSERT INTO gateway_budget_settled (reservation_id, settled_at) VALUES (p_reservation, p_clock) ON CONFLICT (reservation_id) DO NOTHING;
  GET DIAGNOSTICS added = ROW_COUNT;
  -- Settled before (a settle tried again whose first try landed): nothing more to add.
  IF added > 0 THEN
    IF p_micros > 0 OR p_tokens > 0 THEN
      INSERT INTO gateway_budget_spend AS s (budget_id, series, idx, micros, tokens)
        SELECT DISTINCT w.b, w.s, w.t, p_micros, p_tokens FROM unnest(p_ids, p_series, p_to) AS w(b, s, t)
        ON CONFLICT (budget_id, series, idx) DO UPDATE SET micros = s.micros + excluded.micros, tokens = s.tokens + excluded.tokens;
    END IF;
    DELETE FROM gateway_budget_reservations WHERE budget_id = ANY (p_ids) AND (expires_at <= p_clock OR reservation_id = p_reservation);
  END IF;
  FOR i IN 1 .. coalesce(array_length(p_ids, 1), 0) LOOP
    SELECT coalesce(sum(micros), 0), coalesce(sum(tokens), 0) INTO spent_m, spent_t
      FROM gateway_budget_spend WHERE budget_id = p_ids[i] AND series = p_series[i] AND idx BETWEEN p_from[i] AND p_to[i];
    SELECT coalesce(sum(micros), 0) INTO res_m
      FROM gateway_budget_reservations WHERE budget_id = p_ids[i] AND expires_at > p_clock AND reservation_id <> p_reservation;
    sm := sm || spent_m;
    st := st || spent_t;
    um := um || (spent_m + res_m);
  END LOOP;
  RETURN QUERY SELECT added > 0, sm, st, um;
END
$fn$`;

/** Creates the two functions in the store's schema when they are missing (instances starting together take turns). */
export async function ensureLedgerFunctions(store: SqlStore): Promise<void> {
  await store.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext(?))', ['gateway_budget_functions']);
    const found = await tx.query<{ n: string | number }>(
      'SELECT count(*) AS n FROM pg_proc p JOIN pg_namespace s ON s.oid = p.pronamespace WHERE s.nspname = current_schema() AND p.proname IN (?, ?)',
      [RESERVE_FUNCTION, SETTLE_FUNCTION],
    );
    if (Number(found[0]?.n) === 2) return;
    await tx.execute(RESERVE);
    await tx.execute(SETTLE);
  });
}
