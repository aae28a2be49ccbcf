/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/gateway-batches.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Serves files and batches the gateway keeps and runs itself (x-gateway-batch-mode: gateway, ids it issued, providers without the API). It takes no settings: batches.* of the gateway config.
 */
export interface GatewayBatchesStageConfig {}
