import type { GatewayContext } from '../../kernel/engine/context.js';
import { defineSlot } from '../../kernel/engine/slot.js';
import type { RouteSpec } from '../../contract/routes.js';
import type { Usage } from '../../contract/stream-parts.js';
import type { ResolvedTarget } from './providers/provider.js';
import type { AttemptRecord } from './routing/attempts.js';
import type { RoutedAs, RoutingDecision } from './routing/plan.js';

/** The context of a provider-routed request: its route table entry names the operation. */
export type ModelContext = GatewayContext<RouteSpec>;

/** The provider named by x-gateway-provider (set by authenticate, with the key; undefined when a routing config names the providers). */
export const PROVIDER = defineSlot<string>('provider', 'the provider credentials (x-gateway-provider and its key)');
/** The provider key from x-gateway-api-key or Authorization. */
export const PROVIDER_KEY = defineSlot<string>('provider-key', 'a provider key');
/** The routing decision of the request: the routing config's plan, or the one target the headers name (route). */
export const ROUTING = defineSlot<RoutingDecision>('routing', 'a routing decision');
/**
 * Route as this catalogue model, to this one of its targets (a request that names no model:
 * the DELETE of a response made by model name, which must reach the deployment that keeps it).
 */
export const ROUTED_AS = defineSlot<RoutedAs>('routed-as', 'a catalogue model and target to route to');
/** The upstream target of the current attempt, every inherited setting resolved (fallback, once per attempt). */
export const TARGET = defineSlot<ResolvedTarget>('target', 'a target');
/** Every upstream attempt so far (error.debug under x-gateway-debug). */
export const ATTEMPTS = defineSlot<AttemptRecord[]>('attempts', 'the attempts');
/** Monotonic deadline (performance.now() based) for the whole request, when one is set. */
export const DEADLINE = defineSlot<number>('deadline', 'a deadline');
/** Token usage the answer reported (a stream's usage part, or the JSON answer's usage). */
export const USAGE = defineSlot<Partial<Usage>>('usage', 'the usage of the answer');
/**
 * The tokens of the model calls a stage made for the request and read (the tool loop's rounds),
 * summed: what token rate limits count when the request's answer carries less (a loop that
 * ended in an error still used the tokens of the calls that answered before it).
 */
export const CALL_TOKENS = defineSlot<number>('call-tokens', 'the tokens of the model calls made so far');
/** The gateway asked the upstream for a stream's usage the caller did not ask for: the usage-only chunk is left out of the answer. */
export const USAGE_NOT_ASKED = defineSlot<true>('usage-not-asked', 'a usage-not-asked flag');
/** An upload already went upstream: unless it is a spooled form (read whole by validate), it cannot be sent again (no retry, no fallback). */
export const UPLOAD_SENT = defineSlot<true>('upload-sent', 'an upload-sent flag');
/** The gateway served the request itself (its own files and batches): no provider shapes apply. */
export const GATEWAY_SERVED = defineSlot<true>('gateway-served', 'a gateway-served flag');
/** The request is one line of a batch the gateway runs (not a caller's HTTP request). */
export const BATCH_LINE = defineSlot<true>('batch-line', 'a batch-line flag');

/** Appends to the request's attempt list. */
export function attemptsOf(ctx: GatewayContext): AttemptRecord[] {
  let list = ctx.get(ATTEMPTS);
  if (!list) ctx.set(ATTEMPTS, (list = []));
  return list;
}

/**
 * Whether the request carries a gateway credential (a gateway token or config key, checked by
 * authenticate, which sets ctx.identity). Only such a request may use a key the gateway holds
 * (providers.<id>.apiKey, the keys and cloud secrets of configs.<name>, held credentials).
 */
export function carriesGatewayCredential(ctx: GatewayContext): boolean {
  const identity = ctx.identity;
  return identity !== null && identity.kind !== 'anonymous';
}

/**
 * The tenant a request acts for, named by its gateway credential (`<kind>:<id>`), or undefined
 * without one: whose cached answers, gateway-kept files and objects made on a held key these
 * are. A key the gateway holds serves every tenant allowed to use it, so its hash alone tells no
 * tenant from another.
 */
export function credentialTenant(ctx: GatewayContext): string | undefined {
  const identity = ctx.identity;
  return identity !== null && identity.kind !== 'anonymous' ? `${identity.kind}:${identity.id}` : undefined;
}
