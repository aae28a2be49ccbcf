/**
 * The one typed union every provider's stream is turned into. Provider code yields these;
 * only the HTTP edge (protocol/openai/chunk-writer.ts) turns them into OpenAI SSE text.
 */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  [extra: string]: unknown;
}

export type StreamPart =
  /** An already OpenAI-shaped chunk (the JSON text of one `data:` event), passed through untouched. */
  | { type: 'chunk'; data: string }
  /** Start of a translated answer: the ids the chunks carry. */
  | { type: 'meta'; id: string; model: string; created: number }
  | { type: 'text'; choice: number; text: string }
  /** The first delta of a tool call: its id, type and function name. */
  | { type: 'tool-call-start'; choice: number; index: number; id: string; name: string }
  /** More argument text of tool call `index`. */
  | { type: 'tool-call-args'; choice: number; index: number; args: string }
  | { type: 'finish'; choice: number; reason: FinishReason }
  | { type: 'usage'; usage: Usage }
  /** The upstream said the answer is complete; a stream that ends without it was cut. */
  | { type: 'done' };
