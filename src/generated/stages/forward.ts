/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/forward.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Sends the request to the current target's provider through its adapter and reads the answer (streams as parts, binary bodies as streams). It takes no settings: the target carries them.
 */
export interface ForwardStageConfig {}
