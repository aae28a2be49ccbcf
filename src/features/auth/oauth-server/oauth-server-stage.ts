import type { OauthServerStageConfig } from '../../../generated/stages/oauth-server.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { defineService } from '../../../kernel/engine/services.js';
import { defineStage } from '../../../kernel/engine/stage.js';
import { RESPONSE } from '../../../kernel/engine/context.js';
import { GatewayError } from '../../../contract/errors/gateway-error.js';
import type { AuthorizationServer } from './authorization-server.js';

/** The gateway's authorization server, when auth.oauth.role is authorization-server. */
export const AUTHORIZATION_SERVER = defineService<AuthorizationServer>('authorization-server');

/**
 * The routes of the authorization server (the route's operation says which): metadata, JWKS,
 * authorize, login, the OpenID provider's callback, consent, token, revoke, register. Errors of
 * the token, revocation and registration endpoints come in OAuth's shape, the others in the
 * contract's; without the authorization-server role every route is a 404.
 */
export default defineStage<OauthServerStageConfig>({
  name: 'oauth-server',
  description: "Serves the gateway's OAuth 2.1 authorization server (/.well-known/oauth-authorization-server, /oauth/*).",
  schema: schemaDocument('stages/oauth-server.schema.json'),
  once: true,
  writes: [RESPONSE],
  terminal: true,
  create(_config, services) {
    const server = services.get(AUTHORIZATION_SERVER);
    return async (ctx) => {
      const operation = (ctx.endpoint as { operation?: string }).operation ?? '';
      if (!server || !operation.startsWith('oauth.')) throw new GatewayError('not_found', `No route ${ctx.method} ${ctx.path}.`);
      await server.serve(ctx, operation);
    };
  },
});
