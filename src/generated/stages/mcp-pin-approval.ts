/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/mcp-pin-approval.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * POST /v1/admin/mcp/servers/{name}/tools/{tool}/approve: an admin approves the definition of a pinned tool last seen (a change, or a tool that appeared after the first list); the tool is served again under pin: strict. Each approval is logged.
 */
export interface McpPinApprovalStageConfig {}
