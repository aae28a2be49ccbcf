import { describe, expect, it } from 'vitest';
import { bindable, bindableBatch } from '../../../../src/kernel/store/sqlite/bindable.js';
import type { SqlStatement } from '../../../../src/kernel/store/sql-store.js';

describe('bindable parameters (SQLite)', () => {
  it('turns booleans into 0/1 and undefined into NULL, on a copy; other values pass as they are', () => {
    const params = [true, false, undefined, null, 3, 'x'];
    expect(bindable(params)).toEqual([1, 0, null, null, 3, 'x']);
    expect(params).toEqual([true, false, undefined, null, 3, 'x']);
  });

  it('gives back the same list when nothing needs a change (a ledger batch binds thousands)', () => {
    const params = [1, 'a', null, 2.5];
    expect(bindable(params)).toBe(params);
  });

  it('a batch is copied only where a statement needed a change', () => {
    const plain: SqlStatement = ['INSERT INTO t VALUES (?)', [1]];
    const flagged: SqlStatement = ['INSERT INTO t VALUES (?, ?)', [true, undefined]];
    const untouched = [plain, plain];
    expect(bindableBatch(untouched)).toBe(untouched);
    const mixed = [plain, flagged];
    const bound = bindableBatch(mixed);
    expect(bound).not.toBe(mixed);
    expect(bound[0]).toBe(plain);
    expect(bound[1]).toEqual(['INSERT INTO t VALUES (?, ?)', [1, null]]);
    expect(mixed[1]).toBe(flagged);
  });
});
