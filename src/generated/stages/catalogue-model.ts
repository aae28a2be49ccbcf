/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/catalogue-model.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * GET /v1/models/{model} with a gateway key: the catalogue model of that name if the key may use it (the item GET /v1/models lists, with context_window and price), else the catalogue's 404 model_not_found.
 */
export interface CatalogueModelStageConfig {}
