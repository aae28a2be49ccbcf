import type { RateLimitStageConfig } from '../generated/stages/rate-limit.js';
import { schemaDocument } from '../kernel/config/schema-validator.js';
import type { GatewayContext } from '../kernel/engine/context.js';
import { CALLER } from '../kernel/engine/report.js';
import { defineStage } from '../kernel/engine/stage.js';
import type { StreamPart } from '../contract/stream-parts.js';
import {
  CACHE_STATUS,
  PROVIDER_KEY,
  TOKEN_SLOTS,
  USAGE,
  failedRequestTokens,
  noteStreamUsage,
  rateLimiter,
  routingConfigs,
  usedTokens,
  type CounterSlot,
  type RateLimiter,
  type RoutingConfigs,
} from '../features/models/index.js';
import { carriesRequest, mcpMessage, MCP_MESSAGE } from '../features/mcp/index.js';
import { RESPONSE } from '../kernel/engine/context.js';

async function* chargeAtEnd(parts: AsyncIterable<StreamPart>, ctx: GatewayContext, limiter: RateLimiter, slots: CounterSlot[]): AsyncGenerator<StreamPart> {
  try {
    yield* noteStreamUsage(parts, ctx);
  } finally {
    const tokens = usedTokens(ctx);
    if (tokens > 0) void limiter.charge(slots, tokens);
  }
}

/**
 * Gateway rate limits (`rateLimits` in the gateway config): counts the request in every rule
 * that covers it, sets X-RateLimit-Limit / -Remaining / -Reset, refuses with 429 and
 * Retry-After past a limit. Token budgets are charged from the answer's usage (JSON `usage`,
 * or a stream's usage part) once the answer is known; answers served from the cache are not
 * charged. Put it before validate so error answers carry the headers too. Without rules the
 * stage is left out of the pipeline. `per: key` counts the request's provider key and the
 * `api_key`s of the caller's own routing config (x-gateway-config), each distinct one.
 *
 * It runs also on the requests authenticate refuses (`seesRejected`: a deferred rejection for
 * no provider key, an unknown provider, a bad gateway credential), counting each once in the
 * rules it can (`per: ip`; `token`, `user` or `team` when a gateway credential was accepted;
 * `per: key` only a key the request brings), so that the refusal carries the headers too. Such
 * a request is answered with its refusal (the same body as without limits), never a 429.
 *
 * In the MCP pipeline (`count: json-rpc-requests`) a hit is a POST that carries a JSON-RPC
 * request (tools/call, tools/list, initialize...): notifications, the client's answers to the
 * tool server's own requests (elicitation, sampling, roots), GET streams and DELETE pass
 * uncounted, so a limit never cuts a call that is already running. A refusal is the same 429
 * with Retry-After and the contract's error body, before anything reaches a tool server.
 */
export default defineStage<RateLimitStageConfig>({
  name: 'rate-limit',
  description: 'Applies the gateway rate limits (requests and tokens per window).',
  schema: schemaDocument('stages/rate-limit.schema.json'),
  requires: [CALLER],
  once: true,
  seesRejected: true,
  // also CALL_TOKENS (through usedTokens / failedRequestTokens): undeclared, since only the tool loop writes it and a gateway may run without it
  reads: [PROVIDER_KEY, MCP_MESSAGE, USAGE, TOKEN_SLOTS, RESPONSE],
  writes: [TOKEN_SLOTS],
  create(config, services) {
    const limiter = rateLimiter(services);
    if (!limiter) return null;
    const defaultRules = config.defaultRules !== false;
    if (config.count === 'json-rpc-requests') {
      const bodyLimit = services.config.server?.bodyLimit ?? 10 * 1024 * 1024;
      return async (ctx, next) => {
        if (ctx.method === 'POST' && carriesRequest(await mcpMessage(ctx, bodyLimit))) await limiter.check(ctx, defaultRules);
        await next();
      };
    }
    // `per: key` rules count the provider keys of a caller's x-gateway-config too (compiled here
    // once per distinct header, the route stage then using the same plan).
    let configs: RoutingConfigs | undefined;
    const configKeys = limiter.countsKeys
      ? (ctx: GatewayContext) => {
          if (!configs) {
            try {
              configs = routingConfigs(services);
            } catch {
              // Unusable named configs: a start-up problem the route stage reports.
              return undefined;
            }
          }
          return configs.callerKeys(ctx);
        }
      : undefined;
    return async (ctx, next) => {
      await limiter.check(ctx, defaultRules, configKeys);
      const slots = ctx.get(TOKEN_SLOTS);
      if (!slots) return next();
      try {
        await next();
      } catch (err) {
        // a request that fails still counts the tokens of the model calls made for it (a tool loop's rounds before the failure)
        const tokens = failedRequestTokens(ctx);
        if (tokens > 0) void limiter.charge(slots, tokens);
        throw err;
      }
      if (ctx.responseHeaders[CACHE_STATUS] === 'HIT') return;
      const response = ctx.response;
      if (response?.kind === 'stream') response.parts = chargeAtEnd(response.parts as AsyncIterable<StreamPart>, ctx, limiter, slots);
      else {
        const tokens = usedTokens(ctx);
        if (tokens > 0) void limiter.charge(slots, tokens);
      }
    };
  },
});
