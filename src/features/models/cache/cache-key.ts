import { createHash } from 'node:crypto';
import type { Operation } from '../../../contract/operations.js';
import { BODY, BODY_CHANGED, RAW_BODY } from '../../../kernel/engine/request-body.js';
import { credentialTenant, type ModelContext } from '../model-request.js';
import type { ResolvedTarget } from '../providers/provider.js';

/** Operations whose answers may be cached: they read, and their bodies are JSON. */
export const CACHEABLE_OPERATIONS: ReadonlySet<Operation> = new Set(['chat.completions', 'completions', 'embeddings']);

/**
 * The cache key of this attempt: the route, the provider and its address, a hash of the
 * provider key and the gateway credential's tenant (so tenants never share answers, and no key
 * is stored), and the body that goes upstream (override_params applied). Undefined when the
 * request cannot be cached.
 */
export function cacheKey(ctx: ModelContext, target: ResolvedTarget): string | undefined {
  const body = ctx.get(BODY);
  if (!CACHEABLE_OPERATIONS.has(ctx.endpoint.operation) || ctx.endpoint.body !== 'json' || !body) return undefined;
  const hash = createHash('sha256');
  const keyScope = target.apiKey ? createHash('sha256').update(target.apiKey).digest('hex') : '-';
  hash.update(`v2\n${ctx.route}\n${target.provider}\n${target.baseUrl ?? ''}\n${keyScope}\n${credentialTenant(ctx) ?? '-'}\n`);
  const raw = ctx.get(RAW_BODY);
  if (!ctx.has(BODY_CHANGED) && !target.overrideParams && raw) hash.update(raw);
  else hash.update(JSON.stringify(target.overrideParams ? { ...body, ...target.overrideParams } : body));
  return hash.digest('base64url');
}
