import type { AuthorizeStageConfig } from '../../../generated/stages/authorize.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { defineStage } from '../../../kernel/engine/stage.js';
import { forbidden, notFound } from '../../../contract/errors/gateway-error.js';
import { GATEWAY_CALLER } from '../../auth/index.js';
import { authorize, mayUseEndpoint } from '../authorization.js';
import { MCP } from '../mcp-services.js';
import { IDENTITY } from '../../../kernel/engine/context.js';
import { MCP_MESSAGE } from '../policy/mcp-message.js';

/**
 * MCP permissions at the HTTP level, by the one decision function that also filters lists and
 * refuses calls inside a session: the credential needs mcp:read or mcp:write (403 otherwise),
 * and /mcp/<server> needs a server that exists (404) and that the credential may use
 * (permissions.servers, permissions.tools; 403). Each refusal is audited.
 */
export default defineStage<AuthorizeStageConfig>({
  name: 'authorize',
  description: 'Checks MCP scopes and permissions (servers and tools) of the authenticated caller.',
  schema: schemaDocument('stages/authorize.schema.json'),
  requires: [GATEWAY_CALLER],
  once: true,
  reads: [IDENTITY, MCP_MESSAGE],
  create(_config, services) {
    const endpoint = services.require(MCP);
    const audit = endpoint.audit;
    // No promise of its own: next() is its answer, a refusal is thrown (the chain answers it like a rejection).
    return (ctx, next) => {
      const identity = ctx.identity!;
      const pinned = ctx.params.server;
      if (!mayUseEndpoint(identity)) {
        audit.record(identity, { method: ctx.method, server: pinned, allowed: false, reason: 'the credential has neither mcp:read nor mcp:write', outcome: 'denied', ms: 0 });
        throw forbidden('The credential has neither the mcp:read nor the mcp:write scope.');
      }
      if (pinned !== undefined) {
        if (!endpoint.has(pinned)) throw notFound(`No tool server named ${pinned}.`);
        const decision = authorize(identity, { action: 'list', server: pinned });
        if (!decision.allowed) {
          audit.record(identity, { method: ctx.method, server: pinned, allowed: false, reason: decision.reason, outcome: 'denied', ms: performance.now() - ctx.startedAt });
          throw forbidden(`Forbidden: ${decision.reason}.`);
        }
      }
      return next();
    };
  },
});
