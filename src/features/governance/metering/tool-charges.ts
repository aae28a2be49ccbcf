import { randomUUID } from 'node:crypto';
import type { GatewayConfig } from '../../../generated/gateway.js';
import type { Identity } from '../../../kernel/engine/context.js';
import type { ToolCallObserver } from '../../mcp/tool-call-observers.js';
import { microsFromPico, picoFromDecimal } from '../prices/money.js';
import { NO_USAGE } from '../prices/usage-classes.js';
import type { GatewayKey } from '../governance-types.js';
import type { MeterDeps } from './meter.js';

/** `mcpServers.<name>.toolPrices` as microdollars per call, by server then tool. */
export function toolPrices(config: GatewayConfig): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const [server, settings] of Object.entries(config.mcpServers ?? {})) {
    const prices = (settings as { toolPrices?: Record<string, string> }).toolPrices;
    if (!prices) continue;
    out.set(server, new Map(Object.entries(prices).map(([tool, usd]) => [tool, microsFromPico(picoFromDecimal(usd) ?? 0n)])));
  }
  return out;
}

/** A gateway identity as a key (the tool-server endpoint has no provider request to read one from). */
function keyOfIdentity(identity: Identity): GatewayKey | undefined {
  if (identity.kind === 'anonymous' || identity.kind === 'admin') return undefined;
  const key: GatewayKey = { id: identity.id, user: identity.user ?? identity.id };
  if (identity.team) key.team = identity.team;
  if (identity.organization) key.organization = identity.organization;
  return key;
}

/**
 * Charges each tools/call made with a gateway key its tool's price (default 0; nothing for a
 * call that got no answer) and records it as a usage ledger row with route /mcp, provider
 * `mcp:<server>` and model the tool. Budgets are not charged for tool calls yet: the budgets
 * that apply are worked out from a provider request's context, which a tool call lacks.
 */
export function toolCharges(deps: MeterDeps, prices: Map<string, Map<string, number>>): ToolCallObserver {
  return (identity, call) => {
    const key = keyOfIdentity(identity);
    if (!key) return;
    const micros = call.outcome === 'error' ? 0 : (prices.get(call.server)?.get(call.tool) ?? 0);
    const requestId = `mcp_${randomUUID()}`;
    const record = () =>
      deps.ledger.record({
        requestId,
        at: Date.now(),
        keyId: key.id,
        user: key.user,
        team: key.team ?? null,
        organization: key.organization ?? null,
        customer: null,
        route: '/mcp',
        provider: `mcp:${call.server}`,
        model: call.tool,
        usage: { ...NO_USAGE },
        costMicros: micros,
        priceSource: micros > 0 ? `mcpServers.${call.server}.toolPrices` : null,
        status: call.outcome === 'error' ? 502 : 200,
        latencyMs: call.ms,
        estimated: false,
        unverified: false,
      });
    if (micros > 0) deps.spend.inc([deps.teamLabel(key.team), 'other', 'mcp'], micros / 1e6);
    record();
  };
}
