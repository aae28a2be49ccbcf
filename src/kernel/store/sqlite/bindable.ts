import type { SqlStatement } from '../sql-store.js';

/** Binds JS values the way SQLite takes them (booleans as 0/1, undefined as NULL). */
export function bindable(params: readonly unknown[]): readonly unknown[] {
  // Most calls bind only numbers, strings and nulls (a ledger batch binds thousands): copied only when a value needs it.
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    if (p === undefined || typeof p === 'boolean') return params.map((v) => (v === undefined ? null : typeof v === 'boolean' ? (v ? 1 : 0) : v));
  }
  return params;
}

/** A batch of statements with every parameter list bindable (the batch itself when none needed a change). */
export function bindableBatch(batch: readonly SqlStatement[]): readonly SqlStatement[] {
  let out: SqlStatement[] | undefined;
  for (let i = 0; i < batch.length; i++) {
    const [sql, params] = batch[i]!;
    const bound = bindable(params);
    if (bound === params) continue;
    out ??= batch.slice();
    out[i] = [sql, bound as unknown[]];
  }
  return out ?? batch;
}
