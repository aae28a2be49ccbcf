/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/forward-identity.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Computes the caller's identity headers (X-User-*, X-Organization-Id, the signature with a signing secret) by identityForwarding's rules for the forward stages to send, and drops any such header the caller sent itself. It takes no settings: identityForwarding of the gateway config decides.
 */
export interface ForwardIdentityStageConfig {}
