import type { GatewayConfig } from '../../../generated/gateway.js';
import type { GatewayContext, Identity } from '../../../kernel/engine/context.js';
import { ExtensionRegistry, type ExtensionDefinition } from '../../../kernel/engine/extension.js';
import { defineService, type GatewayServices } from '../../../kernel/engine/services.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import type { ConfigKeys } from '../config-keys.js';
import type { TokenService } from '../token-service.js';

/** How one auth mode checks a caller of the tool-server endpoint. */
export interface Authenticator {
  /**
   * The caller of this request. Throws a 401 GatewayError (with the WWW-Authenticate challenge)
   * for a missing or bad credential, 403 for a credential sent over plain HTTP on a non-loopback
   * address or a token without the required scopes, 503 when the identity provider cannot be
   * reached. `resourcePath` is the endpoint's path (/mcp, /mcp/<server>): OAuth's default audience.
   */
  authenticate(ctx: GatewayContext, resourcePath: string): Promise<Identity>;
}

/** What an auth mode's factory gets besides its settings. */
export interface AuthModeEnv {
  config: GatewayConfig;
  /** Tokens issued by the token operations. */
  tokens: TokenService;
  /** Keys of auth.apiKeys. */
  keys: ConfigKeys;
  logger: Logger;
  services: GatewayServices;
}

/**
 * An auth mode (the extension kind `auth-mode`): `{ name, description, schema, create(settings,
 * env) }`. Built-in modes are bearer, api-key, oauth and mtls (auth.type names one); a plugin
 * adds more, used by `authenticate: { credential: gateway, mode: <name> }` in a pipeline. The
 * settings are the keys of the auth section the schema names, plus the stage's `options`.
 */
export type AuthModeDefinition<Settings = unknown> = ExtensionDefinition<Settings, Authenticator, AuthModeEnv>;

export function defineAuthMode<Settings>(mode: AuthModeDefinition<Settings>): AuthModeDefinition<Settings> {
  return mode;
}

export const AUTH_MODES = defineService<ExtensionRegistry<AuthModeDefinition>>('auth-modes');

export function createAuthModeRegistry(): ExtensionRegistry<AuthModeDefinition> {
  return new ExtensionRegistry<AuthModeDefinition>('auth-mode', undefined, undefined, 'authModes');
}
