/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/files-upload.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * POST /v1/files (multipart/form-data): the text fields; the file streams through.
 */
export interface FileUploadRequest {
  purpose: 'batch' | 'fine-tune' | 'assistants' | 'vision' | 'user_data' | 'evals';
  [k: string]: unknown;
}
