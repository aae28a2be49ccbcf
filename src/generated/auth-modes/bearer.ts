/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/auth-modes/bearer.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Gateway tokens issued by the token operations, in Authorization: Bearer <token>; stored only as hashes, checked for expiry and revocation on every request. No settings.
 */
export interface BearerAuthModeConfig {}
