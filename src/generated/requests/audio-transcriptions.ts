/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/audio-transcriptions.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * POST /v1/audio/transcriptions (multipart/form-data): the text fields. The file (mp3, mp4, mpeg, mpga, m4a, wav, webm; at most 25 MB) is checked while it streams.
 */
export interface TranscriptionRequest {
  model: string;
  language?: string;
  prompt?: string;
  response_format?: 'json' | 'text' | 'srt' | 'verbose_json' | 'vtt';
  temperature?: number;
  timestamp_granularities?: ('word' | 'segment')[];
  [k: string]: unknown;
}
