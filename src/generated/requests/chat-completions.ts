/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/chat-completions.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * POST /v1/chat/completions. Unknown fields are passed to providers that accept them.
 */
export interface ChatCompletionRequest {
  model: string;
  /**
   * @minItems 1
   */
  messages: [ChatMessage, ...ChatMessage[]];
  temperature?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  top_p?: number;
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
  n?: number;
  user?: string;
  tools?: ChatTool[];
  tool_choice?:
    | ('none' | 'auto' | 'required')
    | {
        type: 'function';
        function?: {
          name: string;
          [k: string]: unknown;
        };
        [k: string]: unknown;
      };
  parallel_tool_calls?: boolean;
  response_format?: {
    type: 'text' | 'json_object' | 'json_schema';
    json_schema?: {
      [k: string]: unknown;
    };
    [k: string]: unknown;
  };
  seed?: number;
  logprobs?: boolean;
  top_logprobs?: number;
  /**
   * How much the model reasons; mapped to each provider's control (Anthropic and Bedrock thinking budgets, Gemini thinkingConfig).
   */
  reasoning_effort?: 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';
  logit_bias?: {
    [k: string]: number;
  };
  [k: string]: unknown;
}
export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function';
  /**
   * Text, null, or content parts (one type list rather than oneOf: the branches differ by type, and a valid message then makes no error objects).
   */
  content?: string | null | ContentPart[];
  name?: string;
  tool_call_id?: string;
  /**
   * The reasoning of an earlier assistant answer; sent back only to providers that take it.
   */
  reasoning_content?: string | null;
  /**
   * The reasoning blocks of an earlier assistant answer, sent back to the provider as its own blocks, signatures intact.
   */
  thinking_blocks?: ThinkingBlock[] | null;
  cache_control?: CacheControl;
  tool_calls?: MessageToolCall[];
  [k: string]: unknown;
}
export interface ContentPart {
  type: string;
  [k: string]: unknown;
}
export interface ThinkingBlock {
  type: 'thinking' | 'redacted_thinking';
  thinking?: string;
  signature?: string | null;
  data?: string;
  [k: string]: unknown;
}
/**
 * A prompt-caching breakpoint at the end of this message (Anthropic, Bedrock).
 */
export interface CacheControl {
  type: string;
  ttl?: string;
  [k: string]: unknown;
}
export interface MessageToolCall {
  id: string;
  type: 'function';
  function: {
    name: string;
    arguments: string;
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
export interface ChatTool {
  type: 'function';
  function: {
    name: string;
    description?: string;
    parameters?: {
      [k: string]: unknown;
    };
    strict?: boolean | null;
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
