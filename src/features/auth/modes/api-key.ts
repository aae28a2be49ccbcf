import { forbidden } from '../../../contract/errors/gateway-error.js';
import type { ApiKeyAuthModeConfig } from '../../../generated/auth-modes/api-key.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { headerValue } from '../../../kernel/engine/context.js';
import { unauthenticated } from '../challenge.js';
import { checkGatewayCredential } from '../gateway-credentials.js';
import { GATEWAY_KEY } from '../gateway-key.js';
import { publicBaseUrl } from '../public-url.js';
import { insecureTransportError } from '../transport-security.js';
import { defineAuthMode } from './auth-mode.js';

/** A key in the configured header: a config key (auth.apiKeys) or an issued token. */
export default defineAuthMode<ApiKeyAuthModeConfig>({
  name: 'api-key',
  description: 'Keys from auth.apiKeys or issued tokens, in the header auth.header names.',
  schema: schemaDocument('auth-modes/api-key.schema.json'),
  create(settings, { config, tokens, keys }) {
    const shown = settings.header ?? 'X-API-Key';
    const header = shown.toLowerCase();
    return {
      async authenticate(ctx) {
        const key = headerValue(ctx.headers, header)?.trim();
        if (!key) throw unauthenticated(`Missing credentials: send the key in the ${shown} header.`, publicBaseUrl(ctx.req, config));
        ctx.secrets.push(key);
        const insecure = insecureTransportError(ctx.req, config);
        if (insecure) throw insecure;
        const result = await checkGatewayCredential(key, tokens, keys);
        if (!result.ok) throw result.blocked ? forbidden(result.message) : unauthenticated(result.message, publicBaseUrl(ctx.req, config));
        // the gateway key it is: its own budgets and limits apply to what it spends here (priced tool calls)
        ctx.set(GATEWAY_KEY, result.key);
        return result.identity;
      },
    };
  },
});
