/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/authorize.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * MCP permissions at the HTTP level: the credential needs mcp:read or mcp:write, and /mcp/<server> needs the server to be one the credential may use (permissions.servers, permissions.tools). The same decision function filters lists and refuses calls inside the session.
 */
export interface AuthorizeStageConfig {}
