/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/auth-modes/oauth.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * JWT access tokens verified against the issuer's published keys (OIDC discovery): issuer, expiry, audience and scopes checked; identity from the claims.
 */
export interface OAuthAuthModeConfig {
  /**
   * Issuer URL; its /.well-known/openid-configuration is read.
   */
  issuer?: string;
  /**
   * Identity provider name (google, okta, auth0, custom...).
   */
  provider?: string;
  clientId?: string;
  clientSecret?: string;
  /**
   * Accepted audience(s); default the client id, else this gateway's /mcp URL.
   */
  audience?: string | string[];
  /**
   * Scopes every token must carry.
   */
  scopes?: string[];
  /**
   * The gateway's OAuth role (auth.oauth): with role authorization-server, /mcp accepts the gateway's own access tokens.
   */
  oauth?: {
    [k: string]: unknown;
  };
  /**
   * Claim names that carry the identity.
   */
  claims?: {
    email?: string;
    name?: string;
    team?: string;
    roles?: string;
    organization?: string;
  };
}
