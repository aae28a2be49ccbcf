import type { UsageRow } from '../../src/features/governance/governance-types.js';
import { NO_USAGE } from '../../src/features/governance/prices/usage-classes.js';

/** A ledger row of request `req-<n>` (n input tokens, costing n µ$), with `overrides` set on it. */
export function usageRow(n: number, overrides: Partial<UsageRow> = {}): UsageRow {
  return {
    requestId: `req-${n}`,
    at: 1_700_000_000_000 + n,
    keyId: 'k',
    user: 'u',
    team: null,
    organization: null,
    customer: null,
    route: 'POST /v1/chat/completions',
    provider: 'openai',
    model: 'm',
    usage: { ...NO_USAGE, input: n },
    costMicros: n,
    priceSource: null,
    status: 200,
    latencyMs: 1,
    estimated: false,
    unverified: false,
    ...overrides,
  };
}
