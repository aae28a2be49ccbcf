import type { Capability } from '../../../kernel/capability.js';
import { TOOL_CALL_STATS } from '../../mcp/index.js';
import type { GatewayContext } from '../../../kernel/engine/context.js';
import type { GatewayServices } from '../../../kernel/engine/services.js';
import { getStore } from '../../../kernel/store/store-capability.js';
import { PriceTable } from '../prices/price-table.js';
import { BufferedUsageLedger } from './buffered-usage-ledger.js';
import type { MeterDeps } from './meter.js';
import meterStage from './meter-stage.js';
import { METERING_INPUTS } from './metering-inputs.js';
import { governanceMeteringInputs } from './governance-inputs.js';
import { METER, METER_DEPS, USAGE_LEDGER } from './metering-services.js';
import usageRoutes from './usage-routes.js';
import type { AnyRouteSpec } from '../../../contract/routes.js';
import { endRequestStreams } from './recent-requests.js';
import { USAGE_MIGRATIONS } from './usage-store.js';
import { TOOL_CHARGES, ToolCharges, toolPrices } from './tool-charges.js';
import toolMeterStage from './tool-meter-stage.js';
import { BILLED_BATCH_MIGRATIONS, PROVIDER_BATCH_BILLING, ProviderBatchBilling } from './provider-batch-billing.js';
import { parseDuration } from '../../../kernel/config/defaults.js';
import { TOOL_CALL_OBSERVERS } from '../../mcp/index.js';
import { CATALOGUE, PRICE_TABLE } from '../governance-services.js';

let shippedPrices: PriceTable | undefined;

/** The price table the governance capability read (PRICE_TABLE), else the shipped one read once per process. */
function priceTable(services: GatewayServices): PriceTable {
  return services.get(PRICE_TABLE) ?? (shippedPrices ??= PriceTable.read().table);
}

/** Team names the config knows (tenants, config keys): the only team label values. */
function knownTeams(services: GatewayServices): string[] {
  const config = services.config;
  const teams = Object.keys(config.tenants?.teams ?? {});
  for (const key of config.auth?.apiKeys ?? []) if (key.team) teams.push(key.team);
  return teams;
}

/**
 * Metering (contract section 8): the usage ledger (a table of the store, written in batches
 * off the request path and flushed at shutdown), the meter stage, the usage report and
 * /v1/me, and the spend, refusal and unpriced-request metrics. Settles each metered request
 * once its answer is written (a request observer of the HTTP edge).
 */
export const meteringCapability: Capability = {
  name: 'metering',
  async setup(services) {
    const store = getStore(services);
    await store.migrate(USAGE_MIGRATIONS);
    await store.migrate(BILLED_BATCH_MIGRATIONS);
    services.provide(USAGE_LEDGER, new BufferedUsageLedger(store, services.logger));
    services.stages.register(meterStage);
    services.stages.register(usageRoutes);
    services.stages.register(toolMeterStage);
    // The tool servers page's calls: the ledger's rows of /mcp tool calls (provider mcp:<server>, model: the tool).
    services.provide(TOOL_CALL_STATS, async (server) => {
      const rows = await store.query<{ model: string; calls: number | string; errors: number | string; last_at: number | string | null }>(
        "SELECT model, COUNT(*) AS calls, SUM(CASE WHEN status >= 400 THEN 1 ELSE 0 END) AS errors, MAX(at) AS last_at FROM gateway_usage WHERE provider = ? AND route = '/mcp' GROUP BY model",
        [`mcp:${server}`],
      );
      return new Map(rows.map((r) => [String(r.model), { calls: Number(r.calls), errors: Number(r.errors ?? 0), last_at: r.last_at === null ? null : Number(r.last_at) }]));
    });
  },
  /** After every capability's setup and the governance capability's prepare (catalogue, price resolver, price table). */
  prepare(services) {
    const ledger = services.require(USAGE_LEDGER);
    const prices = priceTable(services);
    // Another part of governance (catalogue, budgets) may have provided its own inputs already.
    const inputs = services.get(METERING_INPUTS) ?? services.provide(METERING_INPUTS, governanceMeteringInputs(services, prices));
    const { labels, metrics, config } = services;
    labels.add('team', ...knownTeams(services));
    for (const provider of prices.providers()) labels.add('priced-model', ...prices.models(provider));
    // Models the gateway knows (the price table's, the catalogue's upstream ones) are labels of the
    // token counter too: a bounded set, none from a caller.
    for (const provider of prices.providers()) labels.add('model', ...prices.models(provider));
    for (const entry of services.get(CATALOGUE)?.entries() ?? []) if (entry.model !== undefined && !entry.prefix) labels.add('model', entry.model);
    const deps: MeterDeps = {
      inputs,
      ledger,
      logger: services.logger,
      spend: metrics.counter('gateway_spend_usd_total', 'US dollars spent through gateway keys, by team, model and provider.', ['team', 'model', 'provider']),
      refusals: metrics.counter('gateway_budget_refusals_total', 'Requests refused because a budget did not fit, by budget scope.', ['scope']),
      unpriced: metrics.counter('gateway_unpriced_requests_total', 'Requests made with a gateway key to a model with no price (recorded with cost null).', []),
      teamLabel: (team) => labels.pick('team', team, 'other'),
      modelLabel: (provider, model) => inputs.modelLabel?.(provider, model) ?? (labels.has('priced-model', model) ? model : labels.pick('model', model, 'other')),
      providerLabel: (provider) => labels.pick('provider', provider, 'other'),
      unpricedPolicy: config.pricing?.unpriced ?? 'refuse',
      onStoreDown: config.budgets?.onStoreDown ?? 'refuse',
      loops: new Map(),
    };
    services.provide(METER_DEPS, deps);
    const batches = new ProviderBatchBilling(services, deps, parseDuration(config.batches?.providerPollInterval ?? '60s'));
    services.provide(PROVIDER_BATCH_BILLING, batches);
    metrics.observe('metering', (ctx: GatewayContext<AnyRouteSpec>, status: number) => {
      meterFinish(ctx, status, services);
      batches.observe(ctx, status);
    });
    const charges = services.provide(TOOL_CHARGES, new ToolCharges(deps, toolPrices(config)));
    services.once(TOOL_CALL_OBSERVERS, () => []).push(charges.observer);
    services.closers.push(async () => {
      await batches.stop();
      // Waits for the settles under way, then writes their rows.
      await ledger.flush();
    });
  },
  start(services) {
    services.get(PROVIDER_BATCH_BILLING)?.start();
  },
  drain() {
    endRequestStreams();
  },
};

function meterFinish(ctx: GatewayContext<AnyRouteSpec>, status: number, services: GatewayServices): void {
  const meter = ctx.get(METER);
  if (!meter) return;
  try {
    meter.finish(ctx, status);
  } catch (err) {
    services.logger.warn({ requestId: ctx.id, err: (err as Error).message }, 'metering failed for a request');
  }
}
