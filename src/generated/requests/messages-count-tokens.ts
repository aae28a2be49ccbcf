/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/messages-count-tokens.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * POST /v1/messages/count_tokens (Anthropic's token counting). The fields of a Messages request without max_tokens.
 */
export interface MessagesCountTokensRequest {
  model: string;
  /**
   * @minItems 1
   */
  messages: [CountedMessage, ...CountedMessage[]];
  system?:
    | string
    | {
        [k: string]: unknown;
      }[];
  tools?: {
    name: string;
    [k: string]: unknown;
  }[];
  tool_choice?: {
    [k: string]: unknown;
  };
  thinking?: {
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
export interface CountedMessage {
  role: 'user' | 'assistant';
  [k: string]: unknown;
}
