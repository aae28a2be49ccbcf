import type { OAuthAuthModeConfig } from '../../../generated/auth-modes/oauth.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { defineService } from '../../../kernel/engine/services.js';
import { ExtensionConfigError } from '../../../kernel/engine/extension.js';
import { insufficientScope, unauthenticated } from '../challenge.js';
import { OAuthRejection, OAuthVerifier } from '../oauth-verifier.js';
import { publicBaseUrl } from '../public-url.js';
import { bearerValue } from '../secrets.js';
import { insecureTransportError } from '../transport-security.js';
import { defineAuthMode, type Authenticator } from './auth-mode.js';
import type { GatewayConfig } from '../../../generated/gateway.js';
import type { AuthorizationServer } from '../oauth-server/authorization-server.js';
import { AUTHORIZATION_SERVER } from '../oauth-server/oauth-server-stage.js';

/** The OAuth verifiers of this gateway: their discovery runs once the server listens, /ready waits for it. */
export const OAUTH_VERIFIERS = defineService<OAuthVerifier[]>('oauth-verifiers');

/** JWT access tokens of an OIDC issuer, verified against its published keys. */
export default defineAuthMode<OAuthAuthModeConfig>({
  name: 'oauth',
  description: 'JWT access tokens of an OAuth/OIDC issuer (Authorization: Bearer), verified against its keys.',
  schema: schemaDocument('auth-modes/oauth.schema.json'),
  create(settings, { config, logger, services }) {
    if ((settings.oauth as { role?: string } | undefined)?.role === 'authorization-server') return ownTokens(config, services.require(AUTHORIZATION_SERVER));
    if (!settings.issuer) throw new ExtensionConfigError(['issuer: is required (or oauth.role: authorization-server)']);
    const verifier = new OAuthVerifier(settings, logger);
    const verifiers = services.once(OAUTH_VERIFIERS, () => []);
    verifiers.push(verifier);
    services.readiness.set(verifiers.length === 1 ? 'oauth' : `oauth:${verifiers.length}`, () => verifier.ready);
    // auth.audience when set; otherwise the client id or this gateway's /mcp URL (either is accepted).
    const fixed = settings.audience ? (Array.isArray(settings.audience) ? settings.audience : [settings.audience]) : undefined;
    return {
      async authenticate(ctx, resourcePath) {
        const base = publicBaseUrl(ctx.req, config);
        const token = bearerValue(ctx.headers.authorization);
        if (!token) throw unauthenticated('Missing credentials: send Authorization: Bearer <access token> from the identity provider.', base);
        ctx.secrets.push(token);
        const insecure = insecureTransportError(ctx.req, config);
        if (insecure) throw insecure;
        const audiences = fixed ?? [...new Set([...(settings.clientId ? [settings.clientId] : []), `${base}/mcp`, `${base}${resourcePath}`])];
        try {
          return await verifier.verify(token, audiences);
        } catch (err) {
          if (err instanceof OAuthRejection) {
            if (err.kind === 'scope') throw insufficientScope(err.message, base, err.missingScopes);
            throw unauthenticated(err.message, base);
          }
          throw err;
        }
      },
    };
  },
});

/** auth.oauth.role authorization-server: the gateway's own access tokens, for this endpoint's URL (or /mcp's). */
function ownTokens(config: GatewayConfig, server: AuthorizationServer): Authenticator {
  return {
    async authenticate(ctx, resourcePath) {
      const base = publicBaseUrl(ctx.req, config);
      const token = bearerValue(ctx.headers.authorization);
      if (!token) throw unauthenticated("Missing credentials: send Authorization: Bearer <access token> from this gateway's /oauth/token.", base);
      ctx.secrets.push(token);
      const insecure = insecureTransportError(ctx.req, config);
      if (insecure) throw insecure;
      try {
        return await server.verifyAccessToken(token, [...new Set([`${base}/mcp`, `${base}${resourcePath}`])], base);
      } catch (err) {
        if (err instanceof OAuthRejection) {
          if (err.kind === 'scope') throw insufficientScope(err.message, base, err.missingScopes);
          throw unauthenticated(err.message, base);
        }
        throw err;
      }
    },
  };
}
