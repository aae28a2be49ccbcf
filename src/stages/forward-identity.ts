import { defineStage } from '../engine/stage.js';
import { dropForgedIdentityHeaders, identityHeaders } from '../mcp/identity-forwarding.js';

/** Where the stage leaves the headers for the forward stage (and plugins) to send. */
export const IDENTITY_HEADERS_STATE = 'identityHeaders';

/**
 * Computes the identity headers of the caller (X-User-Email, X-User-Name, X-User-Team,
 * X-User-Roles, X-Organization-Id, and X-Gateway-Identity-Signature with a signing secret) from
 * ctx.identity, by identityForwarding's rules, and drops any such header the caller sent itself.
 * The forward stage adds them to the upstream request. The /mcp endpoint uses the same function.
 */
export default defineStage<Record<string, never>>({
  name: 'forward-identity',
  description: 'Forwards the authenticated caller identity to the upstream in X-User-* headers.',
  schema: { type: 'object', additionalProperties: false },
  create(_config, services) {
    const forwarding = services.config.identityForwarding ?? {};
    return async (ctx, next) => {
      dropForgedIdentityHeaders(ctx.req.headers);
      const headers = identityHeaders(ctx.identity, forwarding);
      if (Object.keys(headers).length > 0) ctx.state[IDENTITY_HEADERS_STATE] = headers;
      await next();
    };
  },
});
