import { isAbsolute, relative } from 'node:path';
import type { AdminConfigStageConfig } from '../../generated/stages/admin-config.js';
import { redactedConfig } from '../../kernel/config/redacted-config.js';
import { schemaDocument } from '../../kernel/config/schema-validator.js';
import { CONFIG_ADMIN } from '../../kernel/engine/config-admin.js';
import { IDENTITY, RESPONSE, type GatewayContext } from '../../kernel/engine/context.js';
import { readRequestBytes } from '../../kernel/engine/request-body.js';
import { badRequest, conflict, semanticError } from '../../contract/errors/gateway-error.js';
import { defineStage } from '../../kernel/engine/stage.js';
import { HTTP_EDGE } from '../../kernel/http/pipeline-handler.js';
import { ROOT_DIR } from '../../kernel/paths.js';
import { ROUTES, type GatewayRouteSpec } from '../../contract/routes.js';
import { ADMIN } from '../auth/index.js';
import { AUDIT, configReloadEntry } from '../governance/index.js';

interface PipelineView {
  name: string;
  /** Relative to the package root when it is under it (the shipped pipelines/). */
  file: string;
  description: string;
  stages: string[];
  routes: string[];
}

/** The largest config text POST /v1/admin/config/validate reads. */
const MAX_CONFIG_BYTES = 1 << 20;
const TEXT_TYPES = /^(application\/json|application\/(x-)?yaml|text\/(x-)?yaml|text\/plain)\s*(;|$)/i;

/**
 * GET /v1/admin/config (behind `authenticate: { credential: admin }`): the effective config as
 * JSON with every secret masked, as --print-config prints it, and the pipeline serving each
 * route (its file, stages and routes). The masked copy is made once per config (a reload builds
 * a new pipeline). POST /v1/admin/config/validate checks a config (the body: YAML or JSON) as
 * start-up would, answering its problems; POST /v1/admin/config/reload reloads the config file
 * as SIGHUP does (409 when the gateway was not started from a file; 422 with the problems when
 * the file has some, the running config staying).
 */
export default defineStage<AdminConfigStageConfig, GatewayContext<GatewayRouteSpec>>({
  name: 'admin-config',
  description: 'GET /v1/admin/config: the effective config, secrets masked, and the pipelines per route; POST .../validate checks a config, POST .../reload reloads the file.',
  schema: schemaDocument('stages/admin-config.schema.json'),
  once: true,
  requires: [ADMIN],
  reads: [IDENTITY],
  writes: [RESPONSE],
  terminal: true,
  create(_config, services) {
    const config = redactedConfig(services.config);
    let pipelines: PipelineView[] | undefined;
    // The pipelines compile after this stage is made: read them at the first request.
    const pipelineViews = (): PipelineView[] => {
      if (pipelines) return pipelines;
      const edge = services.require(HTTP_EDGE);
      const byName = new Map<string, PipelineView>();
      for (const route of ROUTES) {
        const pipeline = edge.pipelineFor(route.key);
        if (!pipeline) continue;
        let view = byName.get(pipeline.name);
        if (!view) {
          const rel = relative(ROOT_DIR, pipeline.file);
          view = {
            name: pipeline.name,
            file: rel.startsWith('..') || isAbsolute(rel) ? pipeline.file : rel,
            description: pipeline.description,
            stages: pipeline.stages,
            routes: [],
          };
          byName.set(pipeline.name, view);
        }
        view.routes.push(route.key);
      }
      return (pipelines = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
    };
    const validate = async (ctx: GatewayContext<GatewayRouteSpec>) => {
      const type = ctx.req.headers['content-type'] ?? '';
      if (!TEXT_TYPES.test(type)) throw badRequest('Send the config as the body: content-type application/json, application/yaml or text/plain (YAML or JSON).', 'content-type');
      const raw = await readRequestBytes(ctx.req, MAX_CONFIG_BYTES).catch(() => {
        throw badRequest(`The config must be at most ${MAX_CONFIG_BYTES} bytes.`, 'body');
      });
      if (raw.length === 0) throw badRequest('The request body is empty: send the config to validate.', 'body');
      const problems = await services.require(CONFIG_ADMIN).validate(raw.toString('utf8'), 'body');
      ctx.response = { kind: 'json', status: 200, headers: { 'cache-control': 'no-store' }, body: { object: 'admin.config.validation', valid: problems.length === 0, problems } };
    };
    const reload = async (ctx: GatewayContext<GatewayRouteSpec>) => {
      const admin = services.require(CONFIG_ADMIN);
      if (!admin.reload) throw conflict('This gateway was not started from a config file (gateway --config <file>): there is no file to reload.');
      const outcome = await admin.reload();
      services.logger.info({ audit: 'admin.config.reload', requestId: ctx.id, user: ctx.identity?.user, status: outcome.status }, 'config reload asked through the admin API');
      // A reload that took place (or that the cluster's primary was asked for) is kept in the audit log, as other admin writes are.
      if (outcome.status !== 'failed') await services.get(AUDIT)?.recordAudit(ctx, configReloadEntry(outcome.status, outcome.file, 'api'));
      if (outcome.status === 'failed') {
        throw semanticError(`The config file has problems; the running config stays: ${outcome.problems.slice(0, 20).join('; ')}`);
      }
      ctx.response = { kind: 'json', status: 200, headers: { 'cache-control': 'no-store' }, body: { object: 'admin.config.reload', status: outcome.status, file: outcome.file } };
    };
    return async (ctx) => {
      if (ctx.endpoint.operation === 'admin.config.validate') return validate(ctx);
      if (ctx.endpoint.operation === 'admin.config.reload') return reload(ctx);
      ctx.response = { kind: 'json', status: 200, headers: { 'cache-control': 'no-store' }, body: { object: 'admin.config', config, pipelines: pipelineViews() } };
    };
  },
});
