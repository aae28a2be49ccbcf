/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/responses-create.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * POST /v1/responses (OpenAI's Responses API). Unknown fields are passed to providers that have the Responses API.
 */
export interface ResponsesCreateRequest {
  model: string;
  input?: string | ResponseInputItem[];
  instructions?: string | null;
  previous_response_id?: string | null;
  store?: boolean | null;
  stream?: boolean | null;
  background?: boolean | null;
  max_output_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  parallel_tool_calls?: boolean | null;
  tools?: ResponseTool[];
  tool_choice?:
    | ('none' | 'auto' | 'required')
    | {
        type: string;
        name?: string;
        [k: string]: unknown;
      };
  reasoning?: {
    effort?: 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max' | null;
    summary?: string | null;
    [k: string]: unknown;
  } | null;
  text?: {
    format?: {
      type: 'text' | 'json_object' | 'json_schema';
      [k: string]: unknown;
    };
    [k: string]: unknown;
  } | null;
  metadata?: {
    [k: string]: string;
  } | null;
  truncation?: 'auto' | 'disabled' | null;
  include?: string[] | null;
  user?: string;
  [k: string]: unknown;
}
export interface ResponseInputItem {
  type?: string;
  role?: 'user' | 'assistant' | 'system' | 'developer';
  call_id?: string;
  id?: string;
  [k: string]: unknown;
}
export interface ResponseTool {
  type: string;
  name?: string;
  description?: string | null;
  parameters?: {
    [k: string]: unknown;
  } | null;
  strict?: boolean | null;
  [k: string]: unknown;
}
