import type { IncomingMessage } from 'node:http';
import type { Identity } from '../engine/context.js';
import { headerValue } from '../engine/context.js';
import type { GatewayConfig } from '../generated/gateway.js';
import { insufficientScope, unauthenticated } from './challenge.js';
import type { ConfigKeys } from './config-keys.js';
import { checkGatewayCredential } from './gateway-credentials.js';
import { identityFromCertificate, verifiedPeerCertificate } from './mtls-identity.js';
import { OAuthRejection, type OAuthVerifier } from './oauth-verifier.js';
import { publicBaseUrl } from './public-url.js';
import { ALL_SCOPES } from './scopes.js';
import { bearerValue } from './secrets.js';
import type { TokenService } from './token-service.js';
import { insecureTransportError } from './transport-security.js';

/** The caller of /mcp when auth is disabled: every scope, no narrowing. */
export const ANONYMOUS: Identity = Object.freeze({ kind: 'anonymous', id: 'anonymous', scopes: [...ALL_SCOPES] }) as Identity;

/** What the /mcp endpoint needs from authentication. */
export interface McpAuthenticator {
  /**
   * The caller of this request (anonymous with auth disabled). Throws a 401 GatewayError (with
   * the WWW-Authenticate challenge) for a missing or bad credential, 403 for a credential sent
   * over plain HTTP on a non-loopback address or an OAuth token without the required scopes,
   * 503 when the identity provider cannot be reached.
   */
  authenticate(req: IncomingMessage, resourcePath: string): Promise<Identity>;
}

/** One authenticator per auth.type, chosen once at start-up. */
export function createMcpAuthenticator(config: GatewayConfig, tokens: TokenService, keys: ConfigKeys, oauth: OAuthVerifier | undefined): McpAuthenticator {
  const auth = config.auth ?? {};
  if (!auth.enabled) return { authenticate: async () => ANONYMOUS };
  const secure = (req: IncomingMessage) => {
    const err = insecureTransportError(req, config);
    if (err) throw err;
  };
  switch (auth.type ?? 'bearer') {
    case 'bearer':
      return {
        async authenticate(req) {
          const base = publicBaseUrl(req, config);
          const token = bearerValue(req.headers.authorization);
          if (!token) throw unauthenticated('Missing credentials: send Authorization: Bearer <token> (a token from POST /v1/auth/tokens).', base);
          secure(req);
          const result = await checkGatewayCredential(token, tokens, undefined);
          if (!result.ok) throw unauthenticated(result.message, base);
          return result.identity;
        },
      };
    case 'api-key': {
      const header = (auth.header ?? 'X-API-Key').toLowerCase();
      return {
        async authenticate(req) {
          const base = publicBaseUrl(req, config);
          const key = headerValue(req.headers, header)?.trim();
          if (!key) throw unauthenticated(`Missing credentials: send the key in the ${auth.header ?? 'X-API-Key'} header.`, base);
          secure(req);
          const result = await checkGatewayCredential(key, tokens, keys);
          if (!result.ok) throw unauthenticated(result.message, base);
          return result.identity;
        },
      };
    }
    case 'oauth':
      return {
        async authenticate(req, resourcePath) {
          const base = publicBaseUrl(req, config);
          const token = bearerValue(req.headers.authorization);
          if (!token) throw unauthenticated('Missing credentials: send Authorization: Bearer <access token> from the identity provider.', base);
          secure(req);
          const configured = auth.audience ?? auth.clientId;
          const audiences = configured ? (Array.isArray(configured) ? configured : [configured]) : [...new Set([`${base}/mcp`, `${base}${resourcePath}`])];
          try {
            return await oauth!.verify(token, audiences);
          } catch (err) {
            if (err instanceof OAuthRejection) {
              if (err.kind === 'scope') throw insufficientScope(err.message, base, err.missingScopes);
              throw unauthenticated(err.message, base);
            }
            throw err;
          }
        },
      };
    case 'mtls':
      return {
        async authenticate(req) {
          const cert = verifiedPeerCertificate(req);
          if (!cert) throw unauthenticated('A client certificate signed by the gateway CA (auth.ca) is required.', publicBaseUrl(req, config));
          return identityFromCertificate(cert);
        },
      };
    default:
      throw new Error(`auth.type ${String(auth.type)} is not supported`);
  }
}
