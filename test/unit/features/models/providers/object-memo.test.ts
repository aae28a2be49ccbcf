import { describe, expect, it } from 'vitest';
import { objectMemo } from '../../../../../src/features/models/providers/shared/object-memo.js';
import type { ProviderCall } from '../../../../../src/features/models/providers/provider.js';

const call = (body: Record<string, unknown>) => ({ operation: 'responses.create', body }) as unknown as ProviderCall;

describe('objectMemo', () => {
  it('makes the value once per object (a provider call here), and a copy of the call (spread, Object.assign) makes its own', () => {
    let made = 0;
    const memo = objectMemo((c: ProviderCall) => ({ n: ++made, body: c.body }));
    const a = call({ model: 'a' });
    expect(memo(a)).toBe(memo(a));
    expect(made).toBe(1);
    const spread = { ...a, body: { model: 'b' } } as ProviderCall;
    expect(memo(spread)).toEqual({ n: 2, body: { model: 'b' } });
    const assigned = Object.assign(Object.create(null) as ProviderCall, a, { body: { model: 'c' } });
    expect(memo(assigned).body).toEqual({ model: 'c' });
    // Two memos of the same call keep their own values.
    const other = objectMemo((_: ProviderCall) => ({ other: true }));
    expect(other(a)).toEqual({ other: true });
    expect(memo(a).n).toBe(1);
  });

  it('makes the value each time for a call that cannot take it (frozen)', () => {
    let made = 0;
    const memo = objectMemo((_: ProviderCall) => ({ n: ++made }));
    const frozen = Object.freeze(call({}));
    memo(frozen);
    memo(frozen);
    expect(made).toBe(2);
  });
});
