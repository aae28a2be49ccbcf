import { headerValue } from '../../kernel/engine/context.js';
import { unauthenticated } from './challenge.js';
import { checkGatewayCredential } from './gateway-credentials.js';
import { publicBaseUrl } from './public-url.js';
import { insecureTransportError } from './transport-security.js';
/**
 * The gateway credential of the authenticate stage on provider routes: a gateway token or
 * config key in x-gateway-token sets ctx.identity (for logs, limits and identity forwarding);
 * it is demanded when auth.providerRoutes is true.
 */
export function createProviderRouteAuth(config, tokens, keys) {
    return {
        async authenticate(ctx, required) {
            const value = headerValue(ctx.headers, 'x-gateway-token')?.trim();
            if (!value) {
                if (required)
                    throw unauthenticated('A gateway credential is required on this route: send it in x-gateway-token.', publicBaseUrl(ctx.req, config));
                return;
            }
            ctx.secrets.push(value);
            const insecure = insecureTransportError(ctx.req, config);
            if (insecure)
                throw insecure;
            const result = await checkGatewayCredential(value, tokens, keys);
            if (!result.ok)
                throw unauthenticated(`x-gateway-token: ${result.message}`, publicBaseUrl(ctx.req, config));
            ctx.identity = result.identity;
        },
    };
}
//# sourceMappingURL=provider-route-auth.js.map