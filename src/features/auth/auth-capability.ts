import type { Capability } from '../../kernel/capability.js';
import { getStore, migrateStore } from '../../kernel/store/store-capability.js';
import { ConfigError } from '../../kernel/config/load-config.js';
import { ADMIN_SESSIONS, CONFIG_KEYS, PROVIDER_ROUTE_AUTH, TOKEN_SERVICE, USER_ROLES } from './auth-services.js';
import { ADMIN_SESSION_MIGRATIONS, AdminSessions } from './admin-session.js';
import { ConfigKeys } from './config-keys.js';
import { AUTH_MODES, createAuthModeRegistry } from './modes/auth-mode.js';
import { BUILTIN_AUTH_MODES } from './modes/builtin-auth-modes.js';
import { OAUTH_VERIFIERS } from './modes/oauth.js';
import protectedResource from './protected-resource-document.js';
import { createProviderRouteAuth } from './provider-route-auth.js';
import adminSession from './admin-session-stage.js';
import tokenOperations from './token-operations.js';
import { OAUTH_SERVER_MIGRATIONS, OAuthServerStore } from './oauth-server/as-store.js';
import { AuthorizationServer } from './oauth-server/authorization-server.js';
import oauthServer, { AUTHORIZATION_SERVER } from './oauth-server/oauth-server-stage.js';
import { SigningKeys } from './oauth-server/signing-keys.js';
import { TokenService } from './token-service.js';
import { TOKEN_MIGRATIONS, TokenStore } from './token-store.js';
import { hashSecret } from './secrets.js';

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
    await migrateStore(services, TOKEN_MIGRATIONS);
    const tokens = services.provide(TOKEN_SERVICE, new TokenService(new TokenStore(store), auth.tokenExpiration ?? '30d'));
    let keys: ConfigKeys;
    try {
      keys = services.provide(CONFIG_KEYS, new ConfigKeys(auth.apiKeys ?? []));
    } catch (err) {
      // A key's own problems name it; anything else (a key the checks already refused, left out) names the list.
      const message = (err as Error).message;
      throw new ConfigError([message.startsWith('auth.apiKeys') ? message : `auth.apiKeys: ${message}`], 'auth.apiKeys');
    }
    await store.migrate(ADMIN_SESSION_MIGRATIONS);
    services.provide(ADMIN_SESSIONS, new AdminSessions(store, { tokens, keys, userRoles: () => services.get(USER_ROLES) }));
    services.provide(PROVIDER_ROUTE_AUTH, createProviderRouteAuth(config, tokens, keys));
    const modes = services.provide(AUTH_MODES, services.kinds.add(createAuthModeRegistry()));
    for (const mode of BUILTIN_AUTH_MODES) modes.register(mode);
    services.stages.register(tokenOperations);
    services.stages.register(adminSession);
    services.stages.register(protectedResource);
    services.stages.register(oauthServer);
    if (auth.type === 'oauth' && auth.oauth?.role === 'authorization-server') {
      await store.migrate(OAUTH_SERVER_MIGRATIONS);
      // The signing key outlives a reload whose auth.oauth.signingKey did not change (tokens stay valid).
      // A rotation: the new key signs, the previous ones (auth.oauth.previousSigningKeys) still verify and are in the JWKS.
      const pem = auth.oauth.signingKey;
      const previous = auth.oauth.previousSigningKeys ?? [];
      let key: SigningKeys;
      try {
        key = await services.resources.keep('oauth-signing-key', { pem: pem ? hashSecret(pem) : null, previous: previous.map(hashSecret) }, () => SigningKeys.load(pem, previous));
      } catch (err) {
        throw new ConfigError([(err as Error).message], 'auth.oauth.signingKey');
      }
      if (!pem) services.logger.info('auth.oauth.signingKey is not set: access tokens are signed with a key made at start-up (they end with this process)');
      let server: AuthorizationServer;
      try {
        server = new AuthorizationServer({ config, store: new OAuthServerStore(store), key, tokens, keys, logger: services.logger });
      } catch (err) {
        throw new ConfigError([(err as Error).message], 'auth.oauth');
      }
      services.provide(AUTHORIZATION_SERVER, server);
      services.closers.push(() => server.close());
    }
  },
  async start(services) {
    services.get(AUTHORIZATION_SERVER)?.start();
    // Reads the identity providers' discovery documents ahead of the first request (a failure
    // is retried on demand; /ready says whether they have been read).
    for (const verifier of services.get(OAUTH_VERIFIERS) ?? []) await verifier.discover().catch(() => undefined);
  },
};
