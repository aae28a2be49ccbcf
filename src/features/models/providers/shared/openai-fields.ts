import { semanticError } from '../../../../contract/errors/gateway-error.js';
import type { ParamTable } from './param-table.js';

/**
 * Chat request fields that only OpenAI's API understands. Tables of providers with their own
 * API drop them, so that the fields they pass through are the caller's provider-specific extras.
 */
export const OPENAI_ONLY_CHAT_FIELDS: ParamTable = {
  stream_options: false,
  logprobs: false,
  top_logprobs: false,
  logit_bias: false,
  service_tier: false,
  store: false,
  metadata: false,
  modalities: false,
  audio: false,
  prediction: false,
  reasoning_effort: false,
  verbosity: false,
  web_search_options: false,
  prompt_cache_key: false,
  prompt_cache_options: false,
  prompt_cache_retention: false,
  moderation: false,
  safety_identifier: false,
  functions: false,
  function_call: false,
};

/** A rule for `n`: these providers answer one choice per request (more is well-formed, but impossible here: 422). */
export function oneChoiceOnly(provider: string) {
  return {
    transform: (n: unknown) => {
      if (typeof n === 'number' && n > 1) throw semanticError(`${provider} answers one choice per request: n must be 1.`, 'n');
      return undefined;
    },
  };
}

/** OpenAI's `stop` (a string or a list) as a list, or undefined when empty. */
export function stopList(stop: unknown): string[] | undefined {
  const list = typeof stop === 'string' ? [stop] : Array.isArray(stop) ? stop.filter((s): s is string => typeof s === 'string' && s !== '') : [];
  return list.length ? list : undefined;
}
