/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/batches-create.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * POST /v1/batches.
 */
export interface BatchCreateRequest {
  input_file_id: string;
  endpoint: '/v1/chat/completions' | '/v1/completions' | '/v1/embeddings';
  completion_window: '24h';
  metadata?: {
    [k: string]: string;
  } | null;
  [k: string]: unknown;
}
