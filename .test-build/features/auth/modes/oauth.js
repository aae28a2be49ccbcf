import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { defineService } from '../../../kernel/engine/services.js';
import { insufficientScope, unauthenticated } from '../challenge.js';
import { OAuthRejection, OAuthVerifier } from '../oauth-verifier.js';
import { publicBaseUrl } from '../public-url.js';
import { bearerValue } from '../secrets.js';
import { insecureTransportError } from '../transport-security.js';
import { defineAuthMode } from './auth-mode.js';
/** The OAuth verifiers of this gateway: their discovery runs once the server listens, /ready waits for it. */
export const OAUTH_VERIFIERS = defineService('oauth-verifiers');
/** JWT access tokens of an OIDC issuer, verified against its published keys. */
export default defineAuthMode({
    name: 'oauth',
    description: 'JWT access tokens of an OAuth/OIDC issuer (Authorization: Bearer), verified against its keys.',
    schema: schemaDocument('auth-modes/oauth.schema.json'),
    create(settings, { config, logger, services }) {
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
                if (!token)
                    throw unauthenticated('Missing credentials: send Authorization: Bearer <access token> from the identity provider.', base);
                ctx.secrets.push(token);
                const insecure = insecureTransportError(ctx.req, config);
                if (insecure)
                    throw insecure;
                const audiences = fixed ?? [...new Set([...(settings.clientId ? [settings.clientId] : []), `${base}/mcp`, `${base}${resourcePath}`])];
                try {
                    return await verifier.verify(token, audiences);
                }
                catch (err) {
                    if (err instanceof OAuthRejection) {
                        if (err.kind === 'scope')
                            throw insufficientScope(err.message, base, err.missingScopes);
                        throw unauthenticated(err.message, base);
                    }
                    throw err;
                }
            },
        };
    },
});
//# sourceMappingURL=oauth.js.map