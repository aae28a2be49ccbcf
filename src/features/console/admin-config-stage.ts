import { isAbsolute, relative } from 'node:path';
import type { AdminConfigStageConfig } from '../../generated/stages/admin-config.js';
import { redactedConfig } from '../../kernel/config/redacted-config.js';
import { schemaDocument } from '../../kernel/config/schema-validator.js';
import { RESPONSE, type GatewayContext } from '../../kernel/engine/context.js';
import { defineStage } from '../../kernel/engine/stage.js';
import { HTTP_EDGE } from '../../kernel/http/pipeline-handler.js';
import { ROOT_DIR } from '../../kernel/paths.js';
import { ROUTES, type GatewayRouteSpec } from '../../contract/routes.js';
import { ADMIN } from '../auth/index.js';

interface PipelineView {
  name: string;
  /** Relative to the package root when it is under it (the shipped pipelines/). */
  file: string;
  description: string;
  stages: string[];
  routes: string[];
}

/**
 * GET /v1/admin/config (behind `authenticate: { credential: admin }`): the effective config as
 * JSON with every secret masked, as --print-config prints it, and the pipeline serving each
 * route (its file, stages and routes). The masked copy is made once per config (a reload builds
 * a new pipeline).
 */
export default defineStage<AdminConfigStageConfig, GatewayContext<GatewayRouteSpec>>({
  name: 'admin-config',
  description: 'GET /v1/admin/config: the effective config, secrets masked, and the pipelines per route.',
  schema: schemaDocument('stages/admin-config.schema.json'),
  once: true,
  requires: [ADMIN],
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
    return async (ctx) => {
      ctx.response = { kind: 'json', status: 200, headers: { 'cache-control': 'no-store' }, body: { object: 'admin.config', config, pipelines: pipelineViews() } };
    };
  },
});
