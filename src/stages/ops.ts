import type { OpsStageConfig } from '../generated/stages/ops.js';
import { schemaDocument } from '../kernel/config/schema-validator.js';
import type { GatewayContext } from '../kernel/engine/context.js';
import { LIFECYCLE } from '../kernel/engine/lifecycle.js';
import { QUIET } from '../kernel/engine/report.js';
import { defineStage } from '../kernel/engine/stage.js';
import { notFound } from '../contract/errors/gateway-error.js';
import type { GatewayRouteSpec } from '../contract/routes.js';
import { metricsAccess } from '../features/auth/index.js';
import { RESPONSE } from '../kernel/engine/context.js';

/**
 * The operations routes: GET /health (200 while the process runs), GET /ready (200 once the
 * config, the store, the tool servers and the identity provider are up, else 503, with each
 * check; 503 while draining) and GET /metrics (Prometheus text, to the callers metrics.auth
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
          ctx.response = { kind: 'json', status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'not_ready', checks } };
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
