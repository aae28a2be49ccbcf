import type { Capability } from '../capability.js';
import { getExtension, type GatewayServices } from '../engine/services.js';
import { getStore } from '../store/store-capability.js';
import { ConfigError } from '../config/load-config.js';
import { mountTokenRoutes } from './admin-routes.js';
import { ConfigKeys } from './config-keys.js';
import { createMcpAuthenticator, type McpAuthenticator } from './mcp-authenticator.js';
import { OAuthVerifier } from './oauth-verifier.js';
import { mountProtectedResourceMetadata } from './protected-resource.js';
import { createProviderRouteAuth } from './provider-route-auth.js';
import { TokenService } from './token-service.js';
import { TOKEN_MIGRATIONS, TokenStore } from './token-store.js';

export const MCP_AUTHENTICATOR_EXTENSION = 'mcp-authenticator';
export const TOKEN_SERVICE_EXTENSION = 'token-service';

/** The authenticator of /mcp (set up by the auth capability). */
export function getMcpAuthenticator(services: GatewayServices): McpAuthenticator {
  const authenticator = getExtension<McpAuthenticator>(services, MCP_AUTHENTICATOR_EXTENSION);
  if (!authenticator) throw new Error('the auth capability is not set up');
  return authenticator;
}

/**
 * Gateway credentials: issued tokens (durable, in the store), config keys, OAuth/OIDC and mTLS
 * checks for /mcp, the token operations, the protected-resource metadata, and gateway tokens
 * on provider routes (x-gateway-token).
 */
export const authCapability: Capability = {
  name: 'auth',
  async setup(services) {
    const { config, logger } = services;
    const auth = config.auth ?? {};
    const store = getStore(services);
    await store.migrate(TOKEN_MIGRATIONS);
    const tokens = new TokenService(new TokenStore(store), auth.tokenExpiration ?? '30d');
    let keys: ConfigKeys;
    try {
      keys = new ConfigKeys(auth.apiKeys ?? []);
    } catch (err) {
      throw new ConfigError([(err as Error).message], 'auth.apiKeys');
    }
    const oauth = auth.enabled && auth.type === 'oauth' ? new OAuthVerifier(auth, logger) : undefined;
    if (oauth) services.readiness.set('oauth', () => oauth.ready);
    services.extensions.set(TOKEN_SERVICE_EXTENSION, tokens);
    services.extensions.set(MCP_AUTHENTICATOR_EXTENSION, createMcpAuthenticator(config, tokens, keys, oauth));
    services.extensions.set('provider-route-auth', createProviderRouteAuth(config, tokens, keys));
    services.extensions.set('oauth-verifier', oauth);
  },
  routes(app, services) {
    const tokens = getExtension<TokenService>(services, TOKEN_SERVICE_EXTENSION)!;
    mountTokenRoutes(app, services.config, tokens, services.logger);
    mountProtectedResourceMetadata(app, services.config);
  },
  async start(services) {
    // Reads the identity provider's discovery document ahead of the first request (a failure
    // is retried on demand; /ready says whether it has been read).
    const oauth = getExtension<OAuthVerifier>(services, 'oauth-verifier');
    await oauth?.discover().catch(() => undefined);
  },
};
