/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/audio-translations.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * POST /v1/audio/translations (multipart/form-data): the text fields; the file as for transcriptions.
 */
export interface TranslationRequest {
  model: string;
  prompt?: string;
  response_format?: 'json' | 'text' | 'srt' | 'verbose_json' | 'vtt';
  temperature?: number;
  [k: string]: unknown;
}
