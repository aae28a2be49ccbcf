/**
 * An OpenAI chat.completion as the gateway reads one (a provider's answer, or one it assembled):
 * the fields its readers look at, none of them checked on arrival. Any JSON value may come, so
 * a reader guards what it reads (`?.`, typeof, Array.isArray) and a field not of its type reads
 * as absent; the shape names the fields, it does not vouch for them.
 */
export interface ChatAnswer {
  id?: unknown;
  object?: unknown;
  created?: unknown;
  model?: unknown;
  choices?: ChatAnswerChoice[];
  usage?: unknown;
  [field: string]: unknown;
}

export interface ChatAnswerChoice {
  index?: unknown;
  finish_reason?: unknown;
  message?: ChatAnswerMessage;
  [field: string]: unknown;
}

export interface ChatAnswerMessage {
  role?: unknown;
  content?: unknown;
  reasoning_content?: unknown;
  thinking_blocks?: unknown;
  tool_calls?: unknown;
  [field: string]: unknown;
}

/** A tool call of an answer's message (`extra_content`: a Gemini thought signature riding on it). */
export interface ChatAnswerToolCall {
  id?: unknown;
  type?: unknown;
  function?: { name?: unknown; arguments?: unknown };
  extra_content?: { google?: { thought_signature?: unknown } };
  [field: string]: unknown;
}
