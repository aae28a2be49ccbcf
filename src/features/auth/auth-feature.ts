import type { GatewayConfig } from '../../generated/gateway.js';
import { defineFeature } from '../../kernel/config/features.js';
import { isPlaceholderSecret, MIN_ADMIN_TOKEN_LENGTH } from './placeholder-secrets.js';

/** The longest lifetime auth.tokenExpiration may give a token (as token creation allows). */
const MAX_TOKEN_EXPIRATION_S = 3650 * 86_400;

/** The rules of `auth` and `identityForwarding` a JSON Schema cannot say well. */
function authChecks(config: GatewayConfig): string[] {
  const out: string[] = [];
  const authServer = config.auth?.oauth?.role === 'authorization-server';
  if (config.auth?.enabled && config.auth.type === 'oauth' && !config.auth.issuer && !authServer) out.push('auth.issuer: is required when auth.type is oauth');
  if (authServer && config.auth?.oauth?.login?.includes('oidc')) {
    for (const key of ['issuer', 'clientId', 'clientSecret'] as const) {
      if (!config.auth[key]) out.push(`auth.${key}: is required when auth.oauth.login includes oidc`);
    }
  }
  if (config.auth?.enabled && config.auth.type === 'mtls' && !config.auth.ca) out.push('auth.ca: is required when auth.type is mtls');
  if (config.auth?.type === 'mtls' && config.auth.enabled && !config.server?.ssl?.enabled) out.push('server.ssl.enabled: must be true when auth.type is mtls');
  const adminToken = config.auth?.adminToken;
  if (typeof adminToken === 'string') {
    if (adminToken.length < MIN_ADMIN_TOKEN_LENGTH) out.push(`auth.adminToken: must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters (generate one: openssl rand -hex 32)`);
    else if (isPlaceholderSecret(adminToken)) out.push('auth.adminToken: is a placeholder from the examples, known to anyone; set a random value (openssl rand -hex 32)');
  }
  const signing = config.identityForwarding?.signingSecret;
  if (typeof signing === 'string' && isPlaceholderSecret(signing)) {
    out.push('identityForwarding.signingSecret: is a placeholder from the examples, known to anyone; set a random value (openssl rand -hex 32)');
  }
  const expiration = config.auth?.tokenExpiration;
  if (typeof expiration === 'string') {
    const m = /^(\d+)([dhms])$/.exec(expiration);
    const seconds = m ? Number(m[1]) * ({ d: 86_400, h: 3_600, m: 60, s: 1 } as Record<string, number>)[m[2]!]! : 0;
    if (!(seconds >= 1 && seconds <= MAX_TOKEN_EXPIRATION_S)) out.push('auth.tokenExpiration: must be between 1s and 3650d');
  }
  return out;
}

/**
 * The auth feature's part of the gateway config: `auth` (who may call, the admin token, issued
 * tokens, the authorization server) and `identityForwarding` (the caller's identity sent
 * upstream). Configured keys (`auth.apiKeys[].key`) and the PEM keys of `auth.oauth` are
 * credentials; the mTLS CA is read at start-up; a browser page may send the api-key header (CORS); the start-up line names the auth mode.
 */
export const authFeature = defineFeature({
  name: 'auth',
  configKeys: ['auth', 'identityForwarding'],
  envOverrides: [
    { variable: 'GATEWAY_AUTH_TYPE', key: 'auth.type' },
    { variable: 'GATEWAY_AUTH_ENABLED', key: 'auth.enabled', type: 'boolean' },
    { variable: 'GATEWAY_ADMIN_TOKEN', key: 'auth.adminToken' },
  ],
  defaults: (config) => ({
    auth: { enabled: false, type: 'bearer', header: 'X-API-Key', tokenExpiration: '30d', ...config.auth },
    identityForwarding: { enabled: true, ...config.identityForwarding },
  }),
  checks: [authChecks],
  files: [{ key: 'auth.ca', read: (config) => config.auth?.enabled === true && config.auth.type === 'mtls' }],
  secretFields: ['key', 'signingKey', 'previousSigningKeys'],
  corsHeaders: (config) => (config.auth?.type === 'api-key' ? [config.auth.header ?? 'X-API-Key'] : []),
  startupFields: (config) => ({
    auth: config.auth?.enabled ? `${config.auth.type ?? 'bearer'}${config.auth.providerRoutes ? ' (provider routes too)' : ' (/mcp only)'}` : 'off',
  }),
});
