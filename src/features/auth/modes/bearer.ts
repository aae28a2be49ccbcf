import { forbidden } from '../../../contract/errors/gateway-error.js';
import type { BearerAuthModeConfig } from '../../../generated/auth-modes/bearer.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { unauthenticated } from '../challenge.js';
import { checkGatewayCredential } from '../gateway-credentials.js';
import { GATEWAY_KEY } from '../gateway-key.js';
import { publicBaseUrl } from '../public-url.js';
import { bearerValue } from '../secrets.js';
import { insecureTransportError } from '../transport-security.js';
import { defineAuthMode } from './auth-mode.js';

/** Tokens issued by the token operations, in Authorization: Bearer <token>. */
export default defineAuthMode<BearerAuthModeConfig>({
  name: 'bearer',
  description: 'Gateway tokens issued by the token operations (Authorization: Bearer).',
  schema: schemaDocument('auth-modes/bearer.schema.json'),
  create(_settings, { config, tokens }) {
    return {
      async authenticate(ctx) {
        const base = publicBaseUrl(ctx.req, config);
        const token = bearerValue(ctx.headers.authorization);
        if (!token) throw unauthenticated('Missing credentials: send Authorization: Bearer <token> (a token from POST /v1/auth/tokens).', base);
        ctx.secrets.push(token);
        const insecure = insecureTransportError(ctx.req, config);
        if (insecure) throw insecure;
        const result = await checkGatewayCredential(token, tokens, undefined);
        if (!result.ok) throw result.blocked ? forbidden(result.message) : unauthenticated(result.message, base);
        // the gateway key it is: its own budgets and limits apply to what it spends here (priced tool calls)
        ctx.set(GATEWAY_KEY, result.key);
        return result.identity;
      },
    };
  },
});
