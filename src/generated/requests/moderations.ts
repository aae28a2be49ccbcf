/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/moderations.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * POST /v1/moderations: OpenAI's shape (text, a list of texts, or text and image parts).
 */
export interface ModerationRequest {
  model?: string;
  input:
    | string
    | [string, ...string[]]
    | [
        {
          type: 'text' | 'image_url';
          text?: string;
          image_url?: {
            url: string;
            [k: string]: unknown;
          };
          [k: string]: unknown;
        },
        ...{
          type: 'text' | 'image_url';
          text?: string;
          image_url?: {
            url: string;
            [k: string]: unknown;
          };
          [k: string]: unknown;
        }[]
      ];
  [k: string]: unknown;
}
