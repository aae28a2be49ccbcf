import type { OpsStageConfig } from '../generated/stages/ops.js';
import { schemaDocument } from '../kernel/config/schema-validator.js';
import type { GatewayContext } from '../kernel/engine/context.js';
import { LIFECYCLE } from '../kernel/engine/lifecycle.js';
import { QUIET } from '../kernel/engine/report.js';
import { defineStage } from '../kernel/engine/stage.js';
import { GatewayError, notFound } from '../contract/errors/gateway-error.js';
import type { GatewayRouteSpec } from '../contract/routes.js';
import { metricsAccess } from '../features/auth/index.js';
import { RESPONSE } from '../kernel/engine/context.js';

/** What a 503 from /ready says: draining, and the checks that are not up. */
function notReadyMessage(checks: Record<string, boolean>): string {
  const down = Object.keys(checks).filter((name) => !checks[name] && name !== 'accepting');
  const list = down.join(', ');
  if (checks.accepting === false) return `The gateway is shutting down and accepts no new requests${down.length ? ` (not up: ${list})` : ''}.`;
  return `The gateway is not ready: ${list} ${down.length === 1 ? 'is' : 'are'} not up.`;
}

/**
 * The operations routes: GET /health (200 while the process runs), GET /ready (200 once the
 * config, the store, the tool servers and the identity provider are up, else 503, with each
 * check; 503 while draining: the contract's error body, service_unavailable, naming what is not
 * up, with `checks` beside it) and GET /metrics (Prometheus text, to the callers metrics.auth
 * allows: anyone, the admin token, or any gateway credential). Their log lines are at debug
 * level unless `logRequests`.
 */
export default defineStage<OpsStageConfig, GatewayContext<GatewayRouteSpec>>({
  name: 'ops',
  description: 'Answers /health, /ready and /metrics.',
  schema: schemaDocument('stages/ops.schema.json'),
  once: true,
  writes: [QUIET, RESPONSE],
  terminal: true,
  create(config, services) {
    const quiet = config.logRequests !== true;
    const mayReadMetrics = metricsAccess(services);
    return async (ctx) => {
      if (quiet) ctx.set(QUIET, true);
      switch (ctx.endpoint.operation) {
        case 'health':
          ctx.response = { kind: 'json', status: 200, body: { status: 'ok' } };
          return;
        case 'ready': {
          const checks: Record<string, boolean> = {};
          for (const [name, check] of services.readiness) {
            try {
              checks[name] = check();
            } catch {
              checks[name] = false;
            }
          }
          if (services.get(LIFECYCLE)?.draining) checks.accepting = false;
          const ready = Object.values(checks).every(Boolean);
          if (ready) ctx.response = { kind: 'json', status: 200, body: { status: 'ready', checks } };
          else ctx.response = { kind: 'json', status: 503, body: { ...new GatewayError('service_unavailable', notReadyMessage(checks)).answerBody(), checks } };
          return;
        }
        case 'metrics': {
          if (mayReadMetrics) await mayReadMetrics(ctx);
          const registry = services.metrics.registry;
          ctx.response = { kind: 'binary', status: 200, contentType: registry.contentType, body: Buffer.from(await registry.metrics(), 'utf8') };
          return;
        }
        default:
          throw notFound(`No route ${ctx.method} ${ctx.path}.`);
      }
    };
  },
});
