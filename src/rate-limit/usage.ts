import type { GatewayContext } from '../engine/context.js';
import type { StreamPart, Usage } from '../protocol/stream-parts.js';

/** Tokens an answer used: the stream's usage (ctx.state.usage) or the JSON answer's `usage`. */
export function usedTokens(ctx: GatewayContext): number {
  let usage = ctx.state.usage as Partial<Usage> | undefined;
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
  if (!usage) return 0;
  const total = Number(usage.total_tokens ?? (Number(usage.prompt_tokens ?? 0) + Number(usage.completion_tokens ?? 0)));
  return Number.isFinite(total) && total > 0 ? total : 0;
}

/** Passes a stream through, noting the usage it reports (in a usage part or an OpenAI chunk's `usage`) in ctx.state.usage. */
export async function* noteStreamUsage(parts: AsyncIterable<StreamPart>, ctx: GatewayContext): AsyncGenerator<StreamPart> {
  for await (const part of parts) {
    if (part.type === 'usage') ctx.state.usage = part.usage;
    else if (part.type === 'chunk' && part.data.includes('"usage":{')) {
      try {
        const usage = JSON.parse(part.data).usage;
        if (usage && typeof usage === 'object') ctx.state.usage = usage;
      } catch {
        // not JSON: nothing to note
      }
    }
    yield part;
  }
}
