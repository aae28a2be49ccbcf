import { createHash } from 'node:crypto';
import type { GatewayContext, ResolvedTarget } from '../engine/context.js';
import type { Operation } from '../engine/operations.js';

/** Operations whose answers may be cached: they read, and their bodies are JSON. */
export const CACHEABLE_OPERATIONS: ReadonlySet<Operation> = new Set(['chat.completions', 'completions', 'embeddings']);

/**
 * The cache key of this attempt: the route, the provider and its address, a hash of the
 * provider key (so tenants never share answers, and no key is stored), and the body that
 * goes upstream (override_params applied). Undefined when the request cannot be cached.
 */
export function cacheKey(ctx: GatewayContext, target: ResolvedTarget): string | undefined {
  if (!CACHEABLE_OPERATIONS.has(ctx.route.operation) || ctx.route.body !== 'json' || !ctx.body) return undefined;
  const hash = createHash('sha256');
  const keyScope = target.apiKey ? createHash('sha256').update(target.apiKey).digest('hex') : '-';
  hash.update(`v1\n${ctx.route.key}\n${target.provider}\n${target.baseUrl ?? ''}\n${keyScope}\n`);
  if (!ctx.bodyChanged && !target.overrideParams && ctx.rawBody) hash.update(ctx.rawBody);
  else hash.update(JSON.stringify(target.overrideParams ? { ...ctx.body, ...target.overrideParams } : ctx.body));
  return hash.digest('base64url');
}
