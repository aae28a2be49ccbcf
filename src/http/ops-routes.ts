import type { Express } from 'express';
import type { GatewayServices } from '../engine/services.js';

/** /health (the process runs), /ready (config, store and tool servers up), /metrics (Prometheus). */
export function mountOpsRoutes(app: Express, services: GatewayServices, isDraining: () => boolean): void {
  app.get('/health', (_req, res) => {
    res.status(200).json({ status: 'ok' });
  });
  app.get('/ready', (_req, res) => {
    const checks: Record<string, boolean> = {};
    for (const [name, check] of services.readiness) {
      try {
        checks[name] = check();
      } catch {
        checks[name] = false;
      }
    }
    if (isDraining()) checks.accepting = false;
    const ready = Object.values(checks).every(Boolean);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks });
  });
  app.get('/metrics', async (_req, res) => {
    res.setHeader('content-type', services.metrics.registry.contentType);
    res.end(await services.metrics.registry.metrics());
  });
}
