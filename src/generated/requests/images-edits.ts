/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/images-edits.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * POST /v1/images/edits (multipart/form-data): the text fields. The image and mask files are checked separately (PNG, square, under 4 MB, same size).
 */
export interface ImageEditRequest {
  prompt: string;
  model?: 'dall-e-2';
  n?: number;
  size?: '256x256' | '512x512' | '1024x1024';
  response_format?: 'url' | 'b64_json';
  user?: string;
  [k: string]: unknown;
}
