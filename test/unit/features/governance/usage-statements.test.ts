import { serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { USAGE_COLUMNS, usageStatements, withRowId } from '../../../../src/features/governance/metering/usage-store.js';
import { usageRow } from '../../../helpers/usage-rows.js';
import { NO_USAGE } from '../../../../src/features/governance/prices/usage-classes.js';

const row = (n: number) =>
  usageRow(n, {
    model: 'gpt-4o-mini',
    usage: { ...NO_USAGE, input: 40 + n, output: 20 },
    costMicros: 19,
    priceSource: 'models.fast.price',
    latencyMs: 2.4,
    attempts: [{ provider: 'openai', target: '0', status: 200, latency_ms: 2, error_type: null }],
  });

describe('the ledger batch statement', () => {
  it('binds a batch in one packed array, in USAGE_COLUMNS order (posted whole to the writer thread)', () => {
    const rows = Array.from({ length: 64 }, (_, i) => withRowId(row(i)));
    const statements = usageStatements(rows);
    expect(statements).toHaveLength(1);
    const [sql, params] = statements[0]!;
    expect(sql.match(/\(\?/g)).toHaveLength(64);
    expect(params).toHaveLength(64 * USAGE_COLUMNS.length);
    const first = Object.fromEntries(USAGE_COLUMNS.map((c, i) => [c, params[i]]));
    expect(first).toMatchObject({ id: rows[0]!.id, request_id: 'req-0', input_tokens: 40, output_tokens: 20, cost_micros: 19, latency_ms: 2, estimated: 0 });
    const last = params.slice(63 * USAGE_COLUMNS.length);
    expect(last[1]).toBe('req-63');
    // V8's serializer writes a packed array as a dense one ('A') and an array with holes as a
    // sparse object ('a'), element by element: the slow path this batch must not take.
    const bytes = serialize(params);
    expect(String.fromCharCode(bytes[2]!)).toBe('A');
  });

  it('writes a NUL a row names (a model, a customer, a tool) as U+FFFD: PostgreSQL text cannot hold one, and the batch would fail at every retry', () => {
    const named = withRowId(
      usageRow(1, {
        model: 'gpt\0x',
        customer: '\0',
        parts: [
          {
            seq: 1,
            kind: 'tool',
            provider: null,
            model: null,
            server: 'srv\0',
            tool: 'a\0b',
            usage: { ...NO_USAGE },
            costMicros: 0,
            priceSource: null,
            status: 200,
            latencyMs: 1,
            estimated: false,
            at: 1,
          },
        ],
      }),
    );
    const [[, rowParams], [, partParams]] = usageStatements([named]) as [[string, unknown[]], [string, unknown[]]];
    const stored = Object.fromEntries(USAGE_COLUMNS.map((c, i) => [c, rowParams[i]]));
    expect(stored).toMatchObject({ model: 'gpt\uFFFDx', customer: '\uFFFD', request_id: 'req-1' });
    expect(partParams).toContain('srv\uFFFD');
    expect(partParams).toContain('a\uFFFDb');
    expect([...rowParams, ...partParams].some((v) => typeof v === 'string' && v.includes('\0'))).toBe(false);
  });
});
