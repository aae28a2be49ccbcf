/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/auth-tokens-create.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * POST /v1/auth/tokens (admin).
 */
export interface AuthTokenCreateRequest {
  user: string;
  team?: string;
  email?: string;
  name?: string;
  /**
   * @maxItems 64
   */
  roles?: string[];
  organization?: string;
  scopes?: ('mcp:read' | 'mcp:write')[];
  permissions?: {
    /**
     * @maxItems 256
     */
    servers?: string[];
    /**
     * @maxItems 1024
     */
    tools?: string[];
  };
  /**
   * A number followed by d, h, m or s; at most 3650 days.
   */
  expiresIn?: string;
}
