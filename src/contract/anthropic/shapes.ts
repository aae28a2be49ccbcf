import type { FinishReason, Usage } from '../stream-parts.js';

/** Pieces of Anthropic's Messages API shapes shared by the JSON answers and the stream writer. */

/** OpenAI finish_reason -> Anthropic stop_reason. */
const STOP_REASONS: Record<FinishReason, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
};

export function stopReasonOf(reason: FinishReason | null | undefined): string {
  return reason ? STOP_REASONS[reason] : 'end_turn';
}

/** A count of a usage block (anything but a finite number counts as 0). */
function tokens(value: unknown): number {
  const n = Number(value ?? 0);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

/**
 * OpenAI usage -> Anthropic usage: input_tokens are the prompt tokens neither read from nor
 * written into the cache (Anthropic counts both apart), cache_read_input_tokens the cached
 * ones, cache_creation_input_tokens those written (prompt_tokens_details.cache_write_tokens).
 */
export function anthropicUsage(usage: Usage | undefined, fallbackInput = 0): Record<string, number> {
  const prompt = usage ? tokens(usage.prompt_tokens) : fallbackInput;
  const cached = tokens(usage?.prompt_tokens_details?.cached_tokens);
  const written = tokens(usage?.prompt_tokens_details?.cache_write_tokens);
  const out: Record<string, number> = { input_tokens: Math.max(0, prompt - cached - written), output_tokens: tokens(usage?.completion_tokens) };
  out.cache_creation_input_tokens = written;
  out.cache_read_input_tokens = cached;
  return out;
}

/** Gateway error codes -> Anthropic error types. */
const ERROR_TYPES: Record<string, string> = {
  invalid_api_key: 'authentication_error',
  insufficient_permissions: 'permission_error',
  missing_required_parameter: 'invalid_request_error',
  semantic_error: 'invalid_request_error',
  not_found: 'not_found_error',
  model_not_found: 'not_found_error',
  guardrail_failed: 'invalid_request_error',
  content_policy_violation: 'invalid_request_error',
  rate_limit_exceeded: 'rate_limit_error',
  budget_exceeded: 'rate_limit_error',
  request_timeout: 'timeout_error',
  service_unavailable: 'overloaded_error',
  provider_error: 'api_error',
  internal_error: 'api_error',
};

/** An error in Anthropic's shape (for requests that carry `anthropic-version`). */
export function anthropicErrorBody(error: { code: string; message: string }, requestId?: string): Record<string, unknown> {
  const body: Record<string, unknown> = { type: 'error', error: { type: ERROR_TYPES[error.code] ?? 'api_error', message: error.message } };
  if (requestId) body.request_id = requestId;
  return body;
}

/** An Anthropic message id for an answer whose provider id is not one. */
export function messageIdOf(id: unknown): string {
  const text = typeof id === 'string' ? id : '';
  if (text.startsWith('msg_')) return text;
  const tail = text.replace(/^chatcmpl[-_]/, '').replace(/[^A-Za-z0-9_-]/g, '');
  return `msg_${tail || Date.now().toString(36)}`;
}
