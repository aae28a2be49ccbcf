/**
 * The public plugin API (`import { defineStage, TARGET } from 'pipeline-gateway/plugin'`): the
 * four define* helpers, one per extension kind, and the typed context slots the built-in stages
 * talk through.
 *
 * Each define* returns the definition it is given, with its `kind` added, after checking it with
 * the very registry the gateway registers it in (name, schema, factory, the kind's own rules): a
 * malformed plugin fails where it is defined, with the same message start-up would give. A
 * plugin module exports what define* returned (as `default`, as named exports, or in a list:
 * `stages`, `providers`, `checks`, `authModes`, `extensions`) and is listed under `plugins:`.
 *
 * Slots: a stage declares every slot it touches, and the pipeline compiler checks the order of
 * every pipeline against those declarations at start-up (and in --check):
 *   requires  must be provided by a stage before it (or set by the edge, as BODY is);
 *   provides  set on every request before it calls next();
 *   reads     read when set (optional inputs, before next() or on the way back);
 *   writes    set on some requests, or after next() returned (what stages before it read back);
 *   terminal  it answers every request that reaches it: each pipeline that serves a route must
 *             hold one (`forward` in the provider pipelines).
 * A plugin may define slots of its own with `defineSlot`.
 *
 * Refusals: `ctx.reject(status, { type, code, message, param, retryAfter })` answers with the
 * contract's error body and stops the chain; a 429 carries Retry-After (`retryAfter` seconds,
 * 1 when not given). `ctx.deferRejection(error)` refuses only after the stages that see rejected
 * requests (`seesRejected: true`, as rate-limit: the refusal is counted and carries the
 * X-RateLimit headers) have run; the other stages are passed over.
 */
import { StageRegistry } from './kernel/engine/stage-registry.js';
import { ExtensionRegistry, ExtensionConfigError, type KindRegistry } from './kernel/engine/extension.js';
import { defineSlot, type Slot } from './kernel/engine/slot.js';
import type { GatewayContext, Identity, GatewayResponse, RejectDetail, RouteDef } from './kernel/engine/context.js';
import type { AnyStageDefinition, Middleware, StageDefinition, StageInstance } from './kernel/engine/stage.js';
import type { GatewayServices } from './kernel/engine/services.js';
import { createCheckRegistry, type CheckInput, type CheckResult, type CheckRun, type CheckEnv, type GuardrailCheckDefinition } from './features/guardrails/index.js';
import { createAuthModeRegistry, type AuthModeDefinition, type AuthModeEnv, type Authenticator } from './features/auth/modes/auth-mode.js';
import type { ProviderCall, ProviderDefinition, ProviderInstance, ProviderSettings, ResolvedTarget } from './features/models/providers/provider.js';
import { openAICompatible, PROVIDER_SETTINGS_SCHEMA, type OpenAICompatibleOptions } from './features/models/providers/openai-compatible/openai-compatible.js';

export { defineSlot, ExtensionConfigError, openAICompatible, PROVIDER_SETTINGS_SCHEMA };
export type {
  Slot,
  GatewayContext,
  Identity,
  GatewayResponse,
  RejectDetail,
  RouteDef,
  Middleware,
  StageDefinition,
  StageInstance,
  GatewayServices,
  GuardrailCheckDefinition,
  CheckInput,
  CheckResult,
  CheckRun,
  CheckEnv,
  AuthModeDefinition,
  AuthModeEnv,
  Authenticator,
  ProviderDefinition,
  ProviderInstance,
  ProviderCall,
  ProviderSettings,
  ResolvedTarget,
  OpenAICompatibleOptions,
};

/**
 * Error shapes: a plugin that serves routes of another API gives their errors that API's body.
 * In its stage's create(config, services): `errorShapes(services).add((ctx, err) => ...)`, which
 * returns the error as the request should see it (an AnswerError), or undefined for requests
 * that are not its own. normalize-error asks every shape the features and plugins added.
 */
export { errorShapes } from './kernel/engine/error-shapes.js';
export type { ErrorShaper } from './kernel/engine/error-shapes.js';
export type { AnswerError } from './kernel/errors/answer-error.js';

// The slots. Set by the edge (there for every stage that asks):
/** The request body: the parsed JSON object (read on first use: `await ensureJsonBody(ctx, limit)`, or after `validate`), or a route's checked upload. */
export { BODY, RAW_BODY, BODY_CHANGED, METADATA, ensureJsonBody } from './kernel/engine/request-body.js';
export { REQUEST_SPAN, PARENT_SPAN } from './kernel/engine/tracing.js';
// The request and its answer:
/** IDENTITY is ctx.identity (authenticate provides it); RESPONSE is ctx.response (the terminal stages write it). */
export { IDENTITY, RESPONSE } from './kernel/engine/context.js';
export { CALLER, UPSTREAM, RETRIES, QUIET, LINE_FIELDS } from './kernel/engine/report.js';
export { GATEWAY_CALLER, ADMIN, ADMIN_ACCESS, TOKEN_LIST_SCOPE } from './features/auth/auth-services.js';
// Model requests (the provider pipelines):
export {
  PROVIDER,
  PROVIDER_KEY,
  ROUTED_AS,
  ROUTING,
  TARGET,
  ATTEMPTS,
  DEADLINE,
  USAGE,
  CALL_TOKENS,
  USAGE_NOT_ASKED,
  UPLOAD_SENT,
  GATEWAY_SERVED,
  BATCH_LINE,
} from './features/models/model-request.js';
export { CALL_SPAN } from './features/models/metrics/genai-spans.js';
export { ANSWERED_BY_GATEWAY } from './features/models/responses/answered-by-gateway.js';
export { GATEWAY_KEY, CATALOGUE_MODEL } from './features/governance/governance-slots.js';
export { METER } from './features/governance/metering/metering-services.js';
// Tool servers (/mcp):
export { IDENTITY_FORWARD_HEADERS } from './features/auth/identity-forwarding.js';
export { MCP_MESSAGE } from './features/mcp/policy/mcp-message.js';
export { MCP_ANSWER_STEPS } from './features/mcp/dispatch/answer-steps.js';

/** A definition as a define* helper returns it: tagged with its kind, so a plugin may export it under any name. */
export type Defined<D, K extends string> = D & { readonly kind: K };

/** Checks `def` with a fresh registry of its kind (the rules start-up applies), then tags it. */
function defined<D extends { name: string }, K extends string>(kind: K, registry: KindRegistry, def: D, helper: string): Defined<D, K> {
  if (def && typeof def === 'object' && 'kind' in def && (def as { kind?: unknown }).kind !== kind) {
    throw new Error(`${helper}: ${JSON.stringify((def as { kind?: unknown }).kind)} is not the kind ${kind}`);
  }
  const { kind: _kind, ...rest } = (def ?? {}) as D & { kind?: unknown };
  registry.register(def && typeof def === 'object' ? rest : def, helper);
  return Object.assign(def, { kind }) as Defined<D, K>;
}

function checkSlots(def: AnyStageDefinition): void {
  for (const key of ['requires', 'provides', 'reads', 'writes'] as const) {
    const v = def[key];
    if (v === undefined || typeof v === 'function') continue;
    const bad = v.findIndex((s) => !s || typeof s !== 'object' || typeof s.index !== 'number' || typeof s.name !== 'string');
    if (bad >= 0) throw new Error(`defineStage: stage ${def.name} ${key}[${bad}] is not a slot (import the slots from 'pipeline-gateway/plugin', or make one with defineSlot)`);
  }
  for (const key of ['terminal', 'once', 'repeats', 'seesRejected'] as const) {
    if (def[key] !== undefined && typeof def[key] !== 'boolean') throw new Error(`defineStage: stage ${def.name} ${key} must be true or false`);
  }
}

/**
 * A stage: `{ name, schema, create(config, services) }`, where create returns the middleware
 * `(ctx, next) => Promise<void>` (or `{ run, decorate, debug }`, or null), plus the slots it
 * `requires`, `provides`, `reads` and `writes`, `terminal` when it answers, and `seesRejected`
 * when it runs on requests whose rejection a stage before it deferred.
 */
export function defineStage<Config = unknown, C extends GatewayContext = GatewayContext>(stage: StageDefinition<Config, C>): NoInfer<Defined<StageDefinition<Config, C>, 'stage'>> {
  const out = defined('stage', new StageRegistry(), stage, 'defineStage');
  checkSlots(out);
  return out;
}

/**
 * A provider: `{ name, displayName, schema, fields?, create(settings) }`, where create returns
 * the provider instance (its operations, error mapping, base URL). `openAICompatible({...})`
 * makes the definition of a provider that speaks OpenAI's API.
 */
export function defineProvider(provider: ProviderDefinition): Defined<ProviderDefinition, 'provider'> {
  if (provider && typeof provider === 'object' && (typeof provider.displayName !== 'string' || provider.displayName === '')) {
    throw new Error(`defineProvider: provider ${String(provider.name)} has no displayName`);
  }
  if (provider && typeof provider === 'object' && provider.fields !== undefined && !Array.isArray(provider.fields)) {
    throw new Error(`defineProvider: provider ${provider.name} has fields that are not a list`);
  }
  return defined('provider', new ExtensionRegistry<ProviderDefinition>('provider'), provider, 'defineProvider');
}

/**
 * A guardrail check: `{ name, schema, create(config, env) }`, where `name` is what a check's
 * `type` names in `guardrails.<id>.checks` and create returns `(input) => ({ passed, detail })`.
 */
export function defineCheck<Config = unknown>(check: GuardrailCheckDefinition<Config>): Defined<GuardrailCheckDefinition<Config>, 'guardrail-check'> {
  return defined('guardrail-check', createCheckRegistry(), check, 'defineCheck');
}

/**
 * An auth mode: `{ name, schema, create(settings, env) }`, where create returns
 * `{ authenticate(ctx, resourcePath) }`, which returns the caller's identity or refuses
 * (`ctx.reject(401, { message })`). A pipeline uses it with
 * `authenticate: { credential: gateway, mode: <name>, options: {...} }`.
 */
export function defineAuthMode<Settings = unknown>(mode: AuthModeDefinition<Settings>): Defined<AuthModeDefinition<Settings>, 'auth-mode'> {
  return defined('auth-mode', createAuthModeRegistry(), mode, 'defineAuthMode');
}
