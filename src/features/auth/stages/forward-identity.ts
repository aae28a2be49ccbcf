import type { ForwardIdentityStageConfig } from '../../../generated/stages/forward-identity.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { CALLER } from '../../../kernel/engine/report.js';
import { defineStage } from '../../../kernel/engine/stage.js';
import { dropForgedIdentityHeaders, IDENTITY_FORWARD_HEADERS, identityHeaders } from '../identity-forwarding.js';
import { IDENTITY } from '../../../kernel/engine/context.js';

/**
 * Computes the identity headers of the caller (X-User-Email, X-User-Name, X-User-Team,
 * X-User-Roles, X-Organization-Id, and X-Gateway-Identity-Signature with a signing secret) from
 * ctx.identity, by identityForwarding's rules, and drops any such header the caller sent itself.
 * The forward stage adds them to the upstream request; the tool-server transport sends the same
 * values to each tool server (headers for remote servers, `_meta` for processes).
 */
export default defineStage<ForwardIdentityStageConfig>({
  name: 'forward-identity',
  description: 'Forwards the authenticated caller identity to the upstream in X-User-* headers.',
  schema: schemaDocument('stages/forward-identity.schema.json'),
  requires: [CALLER],
  provides: [IDENTITY_FORWARD_HEADERS],
  reads: [IDENTITY],
  create(_config, services) {
    const forwarding = services.config.identityForwarding ?? {};
    // No promise of its own: next() is its answer.
    return (ctx, next) => {
      dropForgedIdentityHeaders(ctx.req.headers);
      const headers = identityHeaders(ctx.identity, forwarding);
      for (const _name in headers) {
        ctx.set(IDENTITY_FORWARD_HEADERS, headers);
        break;
      }
      return next();
    };
  },
});
