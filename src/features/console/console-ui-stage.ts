import { existsSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import express from 'express';
import type { ConsoleUiStageConfig } from '../../generated/stages/console-ui.js';
import { schemaDocument } from '../../kernel/config/schema-validator.js';
import { RESPONSE, type GatewayContext } from '../../kernel/engine/context.js';
import { CALLER, QUIET } from '../../kernel/engine/report.js';
import { defineStage } from '../../kernel/engine/stage.js';
import { ROOT_DIR } from '../../kernel/paths.js';
import { notFound } from '../../contract/errors/gateway-error.js';
import type { GatewayRouteSpec } from '../../contract/routes.js';
import { setSecurityHeaders } from './security-headers.js';

/** Where `npm run build` (and the install's prepare) puts the browser app. */
export const UI_DIR = join(ROOT_DIR, 'dist', 'ui');

function plain(res: ServerResponse, status: number, text: string): void {
  res.statusCode = status;
  res.setHeader('content-type', 'text/plain; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.end(text);
}

/**
 * The admin console at /ui (ui.enabled): an express app, the terminal stage of pipelines/ui.yaml,
 * serves the browser app's files from dist/ui, index.html for any other path under /ui (the
 * app routes by the URL's hash), each answer with strict security headers. The app is a client
 * of the admin API (it logs in through POST /v1/admin/session); this stage serves no data.
 * With ui.enabled off (the default) /ui is a 404 like any unknown route.
 */
export default defineStage<ConsoleUiStageConfig, GatewayContext<GatewayRouteSpec>>({
  name: 'console-ui',
  description: 'Serves the admin console (the browser app in dist/ui) at /ui when ui.enabled, with strict security headers.',
  schema: schemaDocument('stages/console-ui.schema.json'),
  once: true,
  writes: [QUIET, CALLER, RESPONSE],
  terminal: true,
  create(config, services) {
    const enabled = services.config.ui?.enabled === true;
    const index = join(UI_DIR, 'index.html');
    const built = enabled && existsSync(index);
    if (enabled && !built) services.logger.warn({ dir: UI_DIR }, 'ui.enabled is set but the console is not built (run npm run build): /ui answers 404');
    const html = built ? readFileSync(index) : undefined;
    const app = express();
    app.disable('x-powered-by');
    app.use('/ui', express.static(UI_DIR, { index: false, redirect: false, dotfiles: 'ignore', maxAge: (config.maxAge ?? 300) * 1000 }));
    // Any other path under /ui: the app itself (hash routing), never cached.
    app.get(/^\/ui(\/.*)?$/i, (_req, res) => {
      res.statusCode = 200;
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.setHeader('cache-control', 'no-store');
      res.end(html);
    });
    return async (ctx) => {
      if (!built) throw notFound(`No route ${ctx.method} ${ctx.path}.`);
      ctx.set(QUIET, true);
      ctx.set(CALLER, true);
      const res = ctx.claimResponse();
      setSecurityHeaders(res);
      app(ctx.req, res, (err) => (res.headersSent ? res.destroy() : plain(res, err ? 500 : 404, err ? 'The console could not answer.' : 'Not found.')));
    };
  },
});
