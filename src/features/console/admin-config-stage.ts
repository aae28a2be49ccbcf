import type { AdminConfigStageConfig } from '../../generated/stages/admin-config.js';
import { redactedConfig } from '../../kernel/config/redacted-config.js';
import { schemaDocument } from '../../kernel/config/schema-validator.js';
import type { GatewayContext } from '../../kernel/engine/context.js';
import { defineStage } from '../../kernel/engine/stage.js';
import type { GatewayRouteSpec } from '../../contract/routes.js';
import { ADMIN } from '../auth/auth-services.js';

/**
 * GET /v1/admin/config (behind `authenticate: { credential: admin }`): the effective config as
 * JSON with every secret masked, as --print-config prints it. The masked copy is made once per
 * config (a reload builds a new pipeline).
 */
export default defineStage<AdminConfigStageConfig, GatewayContext<GatewayRouteSpec>>({
  name: 'admin-config',
  description: 'GET /v1/admin/config: the effective config, secrets masked.',
  schema: schemaDocument('stages/admin-config.schema.json'),
  once: true,
  requires: [ADMIN],
  create(_config, services) {
    const body = { object: 'admin.config', config: redactedConfig(services.config) };
    return async (ctx) => {
      ctx.response = { kind: 'json', status: 200, headers: { 'cache-control': 'no-store' }, body };
    };
  },
});
