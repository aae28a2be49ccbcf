/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/admin-mcp-servers.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * GET /v1/admin/mcp/servers: the tool servers of the config with their status, pin mode and tools (each with its pinned digest and any change waiting for approval), for the admin API.
 */
export interface AdminMcpServersStageConfig {}
