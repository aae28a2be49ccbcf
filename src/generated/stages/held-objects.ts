/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/held-objects.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Keeps the files, batches and fine-tuning jobs a provider stores on a key the gateway holds to the gateway key that made each: lists show a caller only its own, another's id is answered as an unknown one. It takes no settings.
 */
export interface HeldObjectsStageConfig {}
