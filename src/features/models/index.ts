/**
 * The public entry of the models feature: what other features may use (the typed slots of a
 * provider-routed request, the provider registry, model answers and streams, routing plans,
 * held credentials, rate counters, the chat/responses/messages translations). Everything else in
 * this folder is its own business (eslint/layers.js refuses imports of it from another feature).
 */
export {
  ATTEMPTS,
  BATCH_LINE,
  CALL_TOKENS,
  DEADLINE,
  GATEWAY_SERVED,
  PROVIDER,
  PROVIDER_KEY,
  ROUTED_AS,
  ROUTING,
  TARGET,
  USAGE,
  USAGE_NOT_ASKED,
  type ModelContext,
} from './model-request.js';
export { PROVIDERS, type ProviderRegistry } from './providers/provider-registry.js';
export type { ResolvedTarget } from './providers/provider.js';
export { callerValueProblem, headerSafe } from './providers/shared/caller-values.js';
export { modelAnswer, modelStream, type ModelStreamAnswer } from './stream-answer.js';
export { answerJson } from './answer-json.js';
export { isTranslated } from './translations.js';
export { CALL_SPAN, setRequestUsage } from './metrics/genai-spans.js';
export type { CounterSlot, RateCounter } from './rate-limit/counter.js';
export { TOKEN_SLOTS, type RateLimiter } from './rate-limit/limiter.js';
export { MemoryRateCounter } from './rate-limit/memory-counter.js';
export { RedisRateCounter } from './rate-limit/redis-counter.js';
export { failedRequestTokens, noteCallTokens, noteStreamUsage, usedTokens } from './rate-limit/usage.js';
export { PlanError, compilePlan, type PlanEnvironment } from './routing/compile-plan.js';
export type { CompiledPlan, PlanNode, RoutedAs, RoutingDecision } from './routing/plan.js';
export { planAt } from './routing/plan.js';
export { carriesGatewayCredential, credentialTenant } from './model-request.js';
export { HELD_CREDENTIALS, usesHeldKey, type HeldCredential, type HeldCredentialSource } from './routing/held-credentials.js';
export { HELD_OBJECTS, heldObjectOwner, type HeldObjectKind, type HeldObjects } from './routing/held-objects.js';
export { planEnvironment, rateLimiter, routingConfigs } from './routing/resilience-services.js';
export type { RoutingConfigs } from './routing/config-source.js';
export { providerKeyFrom, providerOptionsFrom, rememberRequestCredentials } from './routing/provider-credentials.js';
export { SEMANTIC_RULES } from './validation/semantic-rules.js';
export { CACHE_STATUS } from './stages/cache.js';
export { MODEL_STAGES } from './stages/model-stages.js';
export { ANSWERED_BY_GATEWAY } from './responses/answered-by-gateway.js';
export { responseFromChat } from './responses/from-chat.js';
export { chatMessagesFromInput } from './responses/to-chat.js';
export { messageFromChat } from './messages/from-chat.js';
export { callerGoneError } from './routing/failure.js';
export { modelsFeature } from './models-feature.js';
