/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/messages-create.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * POST /v1/messages (Anthropic's Messages API). Unknown fields are passed to anthropic.
 */
export interface MessagesCreateRequest {
  model: string;
  max_tokens: number;
  /**
   * @minItems 1
   */
  messages: [AnthropicMessage, ...AnthropicMessage[]];
  system?: string | AnthropicSystemBlock[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop_sequences?: string[];
  stream?: boolean;
  tools?: AnthropicTool[];
  tool_choice?: {
    type: 'auto' | 'any' | 'tool' | 'none';
    name?: string;
    disable_parallel_tool_use?: boolean;
    [k: string]: unknown;
  };
  thinking?: {
    type: 'enabled' | 'disabled' | 'adaptive';
    budget_tokens?: number;
    [k: string]: unknown;
  };
  metadata?: {
    user_id?: string | null;
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: string | AnthropicContentBlock[];
  [k: string]: unknown;
}
export interface AnthropicContentBlock {
  type: string;
  [k: string]: unknown;
}
export interface AnthropicSystemBlock {
  type: 'text';
  text: string;
  [k: string]: unknown;
}
export interface AnthropicTool {
  name: string;
  type?: string;
  description?: string;
  input_schema?: {
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
