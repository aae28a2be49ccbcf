/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/embeddings.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * POST /v1/embeddings.
 */
export interface EmbeddingRequest {
  model: string;
  input: string | [string, ...string[]] | [number, ...number[]] | [number[], ...number[][]];
  encoding_format?: 'float' | 'base64';
  dimensions?: number;
  user?: string;
  [k: string]: unknown;
}
