/**
 * The one typed union every provider's stream is turned into. Provider code yields these;
 * only the HTTP edge turns them into SSE text, in the answer's format (OpenAI chat chunks,
 * text completions, Anthropic Messages events, Responses events).
 */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; [extra: string]: unknown };
  completion_tokens_details?: { reasoning_tokens?: number; [extra: string]: unknown };
  [extra: string]: unknown;
}

/**
 * A block of the model's reasoning as the provider gave it, sent back as it came so that
 * multi-turn tool use with thinking works: `signature` proves the text is the model's own;
 * a redacted block carries only opaque `data`.
 */
export type ThinkingBlock = { type: 'thinking'; thinking: string; signature?: string } | { type: 'redacted_thinking'; data: string };

export type StreamPart =
  /** An already OpenAI-shaped chunk (the JSON text of one `data:` event), passed through untouched. */
  | { type: 'chunk'; data: string }
  /**
   * An upstream SSE event already in the answer's own format (an Anthropic Messages event for
   * /v1/messages on anthropic, a Responses event on a provider that has the Responses API),
   * passed through untouched.
   */
  | { type: 'event'; event?: string; data: string }
  /**
   * Start of a translated answer: the ids the chunks carry. `inputTokens` is the prompt's size
   * (cached tokens included, `cachedTokens` of them read from a cache) when the provider tells
   * it at the start (writers whose format announces it up front use it).
   */
  | { type: 'meta'; id: string; model: string; created: number; inputTokens?: number; cachedTokens?: number }
  | { type: 'text'; choice: number; text: string }
  /** A piece of the model's reasoning text (OpenAI-style `reasoning_content`). */
  | { type: 'reasoning'; choice: number; text: string }
  /**
   * The reasoning block that the preceding `reasoning` parts belong to is complete: the whole
   * block with its signature. A redacted block comes alone (no `reasoning` parts before it).
   */
  | { type: 'thinking-block'; choice: number; block: ThinkingBlock }
  /**
   * The first delta of a tool call: its id, type and function name; `signature` is a reasoning
   * signature that rides on the call (Gemini's thought signature) and goes back with it.
   */
  | { type: 'tool-call-start'; choice: number; index: number; id: string; name: string; signature?: string }
  /** More argument text of tool call `index`. */
  | { type: 'tool-call-args'; choice: number; index: number; args: string }
  | { type: 'finish'; choice: number; reason: FinishReason }
  | { type: 'usage'; usage: Usage }
  /** The upstream said the answer is complete; a stream that ends without it was cut. */
  | { type: 'done' };
