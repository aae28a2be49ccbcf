/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/images-edits.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * POST /v1/images/edits (multipart/form-data): the text fields. The image and mask files are checked separately (PNG, square, under 4 MB, same size); the family rules (dall-e-2 sizes, dall-e-3 cannot edit) answer 422.
 */
export interface ImageEditRequest {
  prompt: string;
  model?: string;
  n?: number;
  size?: string;
  response_format?: 'url' | 'b64_json';
  user?: string;
  [k: string]: unknown;
}
