/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/authenticate.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Who is calling. credential provider (provider routes): x-gateway-provider and its key, and a gateway credential in x-gateway-token when sent or when auth.providerRoutes demands it. credential gateway (/mcp): the auth mode of auth.type (or `mode`), with the WWW-Authenticate challenge on a 401. credential admin (token operations, admin API): the admin bearer token, or a key holding one of `roles`.
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
   * admin: gateway keys (Authorization: Bearer gwt_... or a config key) whose roles, on the key or its user's in the tenants, include one of these may use the routes too; the admin token always may. viewer reads only; team_admin reads and writes its own team's users, keys and budgets. None given: the admin role only (the admin token, an admin session or a key holding admin).
   */
  roles?: ('admin' | 'viewer' | 'team_admin')[];
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
