import type { Capability } from '../../kernel/capability.js';
import { getStore } from '../../kernel/store/store-capability.js';
import { ConfigError } from '../../kernel/config/load-config.js';
import { CONFIG_KEYS, PROVIDER_ROUTE_AUTH, TOKEN_SERVICE } from './auth-services.js';
import { ConfigKeys } from './config-keys.js';
import { AUTH_MODES, createAuthModeRegistry } from './modes/auth-mode.js';
import { BUILTIN_AUTH_MODES } from './modes/builtin-auth-modes.js';
import { OAUTH_VERIFIERS } from './modes/oauth.js';
import protectedResource from './protected-resource-document.js';
import { createProviderRouteAuth } from './provider-route-auth.js';
import adminSession from './admin-session-stage.js';
import tokenOperations from './token-operations.js';
import { TokenService } from './token-service.js';
import { TOKEN_MIGRATIONS, TokenStore } from './token-store.js';

/**
 * Gateway credentials: issued tokens (durable, in the store), config keys, the auth modes of
 * /mcp (extension kind `auth-mode`: bearer, api-key, oauth, mtls and plugins'), gateway tokens
 * on provider routes (x-gateway-token), and the stages of the token operations and of the
 * protected-resource metadata.
 */
export const authCapability: Capability = {
  name: 'auth',
  async setup(services) {
    const { config } = services;
    const auth = config.auth ?? {};
    const store = getStore(services);
    await store.migrate(TOKEN_MIGRATIONS);
    const tokens = services.provide(TOKEN_SERVICE, new TokenService(new TokenStore(store), auth.tokenExpiration ?? '30d'));
    let keys: ConfigKeys;
    try {
      keys = services.provide(CONFIG_KEYS, new ConfigKeys(auth.apiKeys ?? []));
    } catch (err) {
      throw new ConfigError([(err as Error).message], 'auth.apiKeys');
    }
    services.provide(PROVIDER_ROUTE_AUTH, createProviderRouteAuth(config, tokens, keys));
    const modes = services.provide(AUTH_MODES, services.kinds.add(createAuthModeRegistry()));
    for (const mode of BUILTIN_AUTH_MODES) modes.register(mode);
    services.stages.register(tokenOperations);
    services.stages.register(adminSession);
    services.stages.register(protectedResource);
  },
  async start(services) {
    // Reads the identity providers' discovery documents ahead of the first request (a failure
    // is retried on demand; /ready says whether they have been read).
    for (const verifier of services.get(OAUTH_VERIFIERS) ?? []) await verifier.discover().catch(() => undefined);
  },
};
