/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/mcp-connections.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Each user's connections to tool servers of auth.upstream per_user_oauth: GET /v1/mcp/connections (the caller's own), POST /v1/mcp/connections/{server} (a link to connect), DELETE /v1/mcp/connections/{server} (disconnect), GET /oauth/upstream/callback (the tool server's authorization server sends the browser back), GET /v1/admin/mcp/connections (every user's, for the admin). Tokens are never shown.
 */
export interface McpConnectionsStageConfig {}
