/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/chat-completions.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * A tool call of an earlier assistant answer: a function call (arguments as JSON text) or a custom tool call (free-form input).
 */
export type MessageToolCall = {
  [k: string]: unknown;
} & {
  [k: string]: unknown;
};
/**
 * A function tool (JSON arguments), a custom tool (free-form text input, optionally held to a grammar), or an mcp tool naming a tool server of the gateway (server_label; the gateway runs its calls, see README "Tools for any model").
 */
export type ChatTool = {
  [k: string]: unknown;
};

/**
 * POST /v1/chat/completions. Unknown fields are passed to providers that accept them.
 */
export interface ChatCompletionRequest {
  model: string;
  /**
   * @minItems 1
   */
  messages: [ChatMessage, ...ChatMessage[]];
  temperature?: number | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  top_p?: number | null;
  stream?: boolean | null;
  stream_options?: {
    include_usage?: boolean;
    [k: string]: unknown;
  } | null;
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
  presence_penalty?: number | null;
  frequency_penalty?: number | null;
  n?: number | null;
  user?: string;
  tools?: ChatTool[];
  tool_choice?:
    | ('none' | 'auto' | 'required')
    | {
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
  seed?: number | null;
  logprobs?: boolean | null;
  top_logprobs?: number | null;
  /**
   * How much the model reasons; mapped to each provider's control (Anthropic and Bedrock thinking budgets, Gemini thinkingConfig).
   */
  reasoning_effort?: 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max' | null;
  logit_bias?: {
    [k: string]: number;
  } | null;
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
