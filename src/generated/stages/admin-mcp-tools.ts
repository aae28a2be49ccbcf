/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/admin-mcp-tools.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * GET /v1/admin/mcp/servers/{name}/tools: one page of a tool server's tools (sorted by name; search, after, limit), each with its pinned digest, any change waiting for approval and its calls, from the tool list the gateway keeps of the server, for the admin API.
 */
export interface AdminMcpToolsStageConfig {}
