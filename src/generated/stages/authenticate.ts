/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/authenticate.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Who is calling. credential provider (provider routes): x-gateway-provider and its key, and a gateway credential in x-gateway-token when sent or when auth.providerRoutes demands it. credential gateway (/mcp): the auth mode of auth.type (or `mode`), with the WWW-Authenticate challenge on a 401. credential admin (token operations): the admin bearer token.
 */
export interface AuthenticateStageConfig {
  /**
   * Which credential the routes of this pipeline take.
   */
  credential?: 'provider' | 'gateway' | 'admin';
  /**
   * provider: demand a provider key (default true; false for routes served by the gateway itself).
   */
  providerKey?: boolean;
  /**
   * gateway: the auth mode to use instead of auth.type (a built-in one, or an auth-mode a plugin registers).
   */
  mode?: string;
  /**
   * gateway: settings of the auth mode, checked against its schema (built-in modes read theirs from the auth section).
   */
  options?: {
    [k: string]: unknown;
  };
}
