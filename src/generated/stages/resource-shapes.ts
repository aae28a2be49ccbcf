/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/resource-shapes.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Puts provider answers in the spec's resource shapes (files, fine-tuning jobs and events, model lists, image results). It takes no settings.
 */
export interface ResourceShapesStageConfig {}
