import type { GatewayContext } from '../../../kernel/engine/context.js';
import type { StreamPart, Usage } from '../../../contract/stream-parts.js';
import { CALL_TOKENS, USAGE } from '../model-request.js';

/** The header the cache stage sets on every call it sees (HIT: answered from the gateway's cache). */
const CACHE_STATUS = 'x-gateway-cache-status';

/**
 * Tokens the request used: the stream's usage (USAGE slot) or the JSON answer's `usage`; at
 * least the tokens of the model calls a stage made for it (CALL_TOKENS: a tool loop's rounds,
 * counted even when the loop ended in an error).
 */
export function usedTokens(ctx: GatewayContext): number {
  return Math.max(answerTokens(ctx), ctx.get(CALL_TOKENS) ?? 0);
}

/**
 * Tokens a request that failed (an error thrown, no answer) used: the model calls a stage made
 * for it and read before the failure (a tool loop's rounds before the call that failed).
 */
export function failedRequestTokens(ctx: GatewayContext): number {
  return ctx.get(CALL_TOKENS) ?? 0;
}

/**
 * Notes the usage of one model call a stage made and read (in OpenAI's, the Responses API's or
 * Anthropic's shape) for token rate limits: a call answered from the gateway's cache used none.
 */
export function noteCallTokens(ctx: GatewayContext, usage: unknown): void {
  if (ctx.responseHeaders[CACHE_STATUS] === 'HIT') return;
  const tokens = tokensOf(usage as Partial<Usage> | undefined);
  if (tokens > 0) ctx.set(CALL_TOKENS, (ctx.get(CALL_TOKENS) ?? 0) + tokens);
}

/** Tokens of the answer alone: the stream's usage (USAGE slot) or the JSON answer's `usage`. */
function answerTokens(ctx: GatewayContext): number {
  let usage = ctx.get(USAGE);
  const response = ctx.response;
  if (!usage && response?.kind === 'json' && response.status < 300) {
    let body = response.body as { usage?: Partial<Usage> } | undefined;
    if (!body && response.raw) {
      try {
        body = JSON.parse(response.raw.toString('utf8'));
      } catch {
        body = undefined;
      }
    }
    usage = body?.usage;
  }
  return tokensOf(usage);
}

/** The tokens of a usage object: its total, else its parts (OpenAI's, the Responses API's, Anthropic's). */
function tokensOf(usage: Partial<Usage> | undefined | null): number {
  if (!usage || typeof usage !== 'object') return 0;
  const total = Number(usage.total_tokens ?? Number(usage.prompt_tokens ?? 0) + Number(usage.completion_tokens ?? 0));
  if (Number.isFinite(total) && total > 0) return total;
  // Anthropic's shape (/v1/messages): input, cache reads and writes, output
  const u = usage as Record<string, unknown>;
  const anthropic = ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'].reduce((sum, k) => sum + (Number(u[k]) || 0), 0);
  return anthropic > 0 ? anthropic : 0;
}

/**
 * The usage an upstream event of the answer's own format reports, in OpenAI's shape:
 * Anthropic's message_start / message_delta, the Responses API's final response.
 */
function usageOfEvent(data: string, seen: Usage | undefined): Usage | undefined {
  // The event's fields as read below (`?.` throughout: any JSON value reads as no usage).
  let parsed: { response?: { usage?: unknown }; message?: { usage?: unknown }; usage?: unknown } | null | undefined;
  try {
    parsed = JSON.parse(data) as typeof parsed;
  } catch {
    return undefined;
  }
  const found = parsed?.response?.usage ?? parsed?.message?.usage ?? parsed?.usage;
  if (!found || typeof found !== 'object') return undefined;
  const usage = found as Record<string, unknown>;
  if (typeof usage.total_tokens === 'number') {
    return { prompt_tokens: Number(usage.input_tokens ?? 0), completion_tokens: Number(usage.output_tokens ?? 0), total_tokens: usage.total_tokens };
  }
  const cached = Number(usage.cache_read_input_tokens ?? 0) + Number(usage.cache_creation_input_tokens ?? 0);
  const prompt = usage.input_tokens !== undefined ? Number(usage.input_tokens) + cached : Number(seen?.prompt_tokens ?? 0);
  const completion = Number(usage.output_tokens ?? 0);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** Passes a stream through, noting the usage it reports (in a usage part or an OpenAI chunk's `usage`) in the USAGE slot. */
export async function* noteStreamUsage(parts: AsyncIterable<StreamPart>, ctx: GatewayContext): AsyncGenerator<StreamPart> {
  for await (const part of parts) {
    if (part.type === 'usage') ctx.set(USAGE, part.usage);
    else if (part.type === 'chunk' && part.data.includes('"usage":{')) {
      try {
        const usage = JSON.parse(part.data).usage;
        if (usage && typeof usage === 'object') ctx.set(USAGE, usage);
      } catch {
        // not JSON: nothing to note
      }
    } else if (part.type === 'event' && part.data.includes('"usage":{')) {
      const usage = usageOfEvent(part.data, ctx.get(USAGE) as Usage | undefined);
      if (usage) ctx.set(USAGE, usage);
    }
    yield part;
  }
}
