/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/oauth-server.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Serves the gateway's OAuth 2.1 authorization server (auth.oauth.role: authorization-server): RFC 8414 metadata, /oauth/authorize with its login and consent pages, /oauth/token, /oauth/revoke, /oauth/register and /oauth/jwks. Without that role the routes answer 404.
 */
export interface OauthServerStageConfig {}
