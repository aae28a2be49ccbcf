/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/catalogue-models.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * GET /v1/models with a gateway key and no x-gateway-provider: the catalogue models the key may use, with context_window and price (list shape of contract section 2).
 */
export interface CatalogueModelsStageConfig {}
