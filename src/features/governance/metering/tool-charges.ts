import { randomUUID } from 'node:crypto';
import type { GatewayConfig } from '../../../generated/gateway.js';
import type { GatewayContext, Identity } from '../../../kernel/engine/context.js';
import { defineService } from '../../../kernel/engine/services.js';
import { GatewayError } from '../../../contract/errors/gateway-error.js';
import type { ObservedToolCall, ToolCallObserver } from '../../mcp/index.js';
import { microsFromPico, picoFromDecimal } from '../prices/money.js';
import { NO_USAGE } from '../prices/usage-classes.js';
import { GATEWAY_KEY } from '../governance-slots.js';
import type { ApplicableBudget, GatewayKey, Reservation } from '../governance-types.js';
import { budgetExceeded, settleThenRecord, type MeterDeps } from './meter.js';

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

/** A priced tool call held on the budgets until its answer is observed. */
interface HeldCall {
  requestId: string;
  budgets: readonly ApplicableBudget[];
  reservation: Reservation;
  unverified: boolean;
  timer: NodeJS.Timeout;
}

/** How long a reserved call may go unanswered before its reservation is let go at no charge. */
const UNANSWERED_MS = 600_000;

const queueKey = (identityId: string, server: string, tool: string) => `${identityId}\n${server}\n${tool}`;

/**
 * Tool calls charged a per-tool price (`mcpServers.<name>.toolPrices`, default 0). Before a
 * priced tools/call made with a gateway key goes on, `reserve` holds its price on every budget
 * that applies to the key (refusing with the §8 budget error when one does not fit); when the
 * call is answered the tool-call observer settles it at that price (0 for a call that got no
 * answer) and records its usage ledger row (route /mcp, provider `mcp:<server>`, model the
 * tool). Calls are matched to their reservation by caller, server and tool, first in first out.
 */
export class ToolCharges {
  private readonly held = new Map<string, HeldCall[]>();

  constructor(
    private readonly deps: MeterDeps,
    private readonly prices: Map<string, Map<string, number>>,
  ) {}

  /** Whether any tool has a price (else there is nothing to reserve). */
  get priced(): boolean {
    for (const tools of this.prices.values()) for (const micros of tools.values()) if (micros > 0) return true;
    return false;
  }

  priceOf(server: string, tool: string): number {
    return this.prices.get(server)?.get(tool) ?? 0;
  }

  /** Reserves the price of each priced call on the caller's budgets; throws the refusal (nothing stays held then). */
  async reserve(ctx: GatewayContext, calls: ReadonlyArray<{ server: string; tool: string }>): Promise<void> {
    const identity = ctx.identity;
    const ledger = this.deps.inputs.budgetLedger;
    const key = identity && (ctx.get(GATEWAY_KEY) ?? keyOfIdentity(identity));
    if (!identity || !key || !ledger) return;
    const priced = calls.filter((c) => this.priceOf(c.server, c.tool) > 0);
    if (!priced.length) return;
    const budgets = await this.deps.inputs.budgetsFor(ctx, key);
    if (!budgets.length) return;
    const taken: Array<{ queue: string; call: HeldCall }> = [];
    const release = () => {
      for (const t of taken) this.take(t.queue, t.call);
      for (const t of taken) void ledger.settle(t.call.budgets, t.call.reservation, { micros: 0, tokens: 0 }).catch(() => undefined);
    };
    for (const c of priced) {
      const requestId = `mcp_${randomUUID()}`;
      const reservation: Reservation = { id: requestId, micros: this.priceOf(c.server, c.tool), tokens: 0 };
      const result = await ledger.reserve(budgets, reservation).catch(() => ({ ok: false as const, storeDown: true as const }));
      if (!result.ok && 'storeDown' in result) {
        if (this.deps.onStoreDown === 'allow') {
          this.deps.logger.warn({ key: key.id, tool: `${c.server}/${c.tool}` }, 'budget store down: tool call served without a budget check (budgets.onStoreDown: allow)');
          continue;
        }
        release();
        throw new GatewayError('service_unavailable', 'The budget store is unreachable: budgets cannot be checked, so the tool call is not made.', {
          headers: { 'x-should-retry': 'true' },
        });
      }
      if (!result.ok) {
        release();
        this.deps.refusals.inc([result.refusedBy.scope]);
        throw budgetExceeded(result.refusedBy, result.resetAt);
      }
      const queue = queueKey(identity.id, c.server, c.tool);
      const call: HeldCall = { requestId, budgets, reservation, unverified: false, timer: setTimeout(() => this.unanswered(queue, call), UNANSWERED_MS) };
      call.timer.unref();
      taken.push({ queue, call });
      const list = this.held.get(queue);
      if (list) list.push(call);
      else this.held.set(queue, [call]);
    }
  }

  private take(queue: string, call?: HeldCall): HeldCall | undefined {
    const list = this.held.get(queue);
    if (!list) return undefined;
    const at = call ? list.indexOf(call) : 0;
    const [found] = at >= 0 ? list.splice(at, 1) : [];
    if (!list.length) this.held.delete(queue);
    if (found) clearTimeout(found.timer);
    return found;
  }

  private unanswered(queue: string, call: HeldCall): void {
    if (!this.take(queue, call)) return;
    this.deps.logger.warn({ requestId: call.requestId }, 'a reserved tool call was never answered: its reservation is let go at no charge');
    void this.deps.inputs.budgetLedger?.settle(call.budgets, call.reservation, { micros: 0, tokens: 0 }).catch(() => undefined);
  }

  /**
   * The tool-call observer: a call of a metered tool loop is a part of the loop's request (noted
   * on its meter: its price goes into the request's row, the call into the request's parts);
   * any other call settles its reservation (if any) and records its own row.
   */
  readonly observer: ToolCallObserver = (identity: Identity, call: ObservedToolCall) => {
    const key = keyOfIdentity(identity);
    if (!key) return;
    const { deps } = this;
    const micros = call.outcome === 'error' ? 0 : this.priceOf(call.server, call.tool);
    const status = call.outcome === 'error' ? 502 : 200;
    const priceSource = micros > 0 ? `mcpServers.${call.server}.toolPrices` : null;
    const loop = call.partOf === undefined ? undefined : deps.loops.get(call.partOf);
    if (loop) {
      if (micros > 0) deps.spend.inc([deps.teamLabel(loop.key.team), 'other', 'mcp'], micros / 1e6);
      loop.noteToolCall({ server: call.server, tool: call.tool, micros, priceSource, status, at: Date.now(), latencyMs: call.ms });
      return;
    }
    // a call made for a request (a loop) was not reserved by the tool-meter stage: it takes no /mcp reservation
    const held = call.partOf === undefined ? this.take(queueKey(identity.id, call.server, call.tool)) : undefined;
    const requestId = held?.requestId ?? `mcp_${randomUUID()}`;
    const row = {
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
      priceSource,
      status,
      latencyMs: call.ms,
      estimated: false,
      unverified: false,
    };
    if (micros > 0) deps.spend.inc([deps.teamLabel(key.team), 'other', 'mcp'], micros / 1e6);
    const ledger = deps.inputs.budgetLedger;
    if (!held || !ledger) {
      deps.ledger.record(row);
      return;
    }
    settleThenRecord(deps, ledger, held.budgets, held.reservation, { micros, tokens: 0 }, row, 'a tool call');
  };
}

export const TOOL_CHARGES = defineService<ToolCharges>('tool-charges');
