/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/normalize-error.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * normalize-error takes no settings: whatever the rest of the pipeline throws becomes one catalogue error (unexpected ones logged with the request id and answered as a 500 that reveals nothing).
 */
export interface NormalizeErrorStageConfig {}
