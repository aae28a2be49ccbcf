/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/completions.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * POST /v1/completions (legacy).
 */
export interface CompletionRequest {
  model: string;
  prompt: string | [string | number | number[], ...(string | number | number[])[]];
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  n?: number;
  stream?: boolean;
  stream_options?: {
    include_usage?: boolean;
    [k: string]: unknown;
  };
  /**
   * @maxItems 4
   */
  stop?:
    | string
    | []
    | [string]
    | [string, string]
    | [string, string, string]
    | [string, string, string, string]
    | null;
  presence_penalty?: number;
  frequency_penalty?: number;
  suffix?: string;
  echo?: boolean;
  best_of?: number;
  logprobs?: number;
  seed?: number;
  user?: string;
  [k: string]: unknown;
}
