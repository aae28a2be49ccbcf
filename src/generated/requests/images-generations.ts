/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/images-generations.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * POST /v1/images/generations. Family rules (dall-e-2 / dall-e-3) are checked after this schema and answer 422.
 */
export interface ImageGenerationRequest {
  prompt: string;
  model?: string;
  n?: number;
  size?: string;
  quality?: 'standard' | 'hd' | 'low' | 'medium' | 'high' | 'auto';
  style?: 'vivid' | 'natural';
  response_format?: 'url' | 'b64_json';
  user?: string;
  [k: string]: unknown;
}
