import type { GatewayContext } from './context.js';
import type { ExtensionDefinition } from './extension.js';
import type { GatewayServices } from './services.js';
import type { Slot } from './slot.js';

/** What a stage runs per request: koa-style middleware over the gateway context. */
export type Middleware<C extends GatewayContext = GatewayContext> = (ctx: C, next: () => Promise<void>) => Promise<void>;

/**
 * A stage as its factory made it, when it does more than run: `decorate` adds headers to every
 * answer of the pipelines that hold the stage (errors included, whether or not the stage ran),
 * `debug` adds fields to error.debug (x-gateway-debug).
 */
export interface StageInstance<C extends GatewayContext = GatewayContext> {
  run: Middleware<C>;
  decorate?(ctx: C, headers: Record<string, string>): void;
  debug?(ctx: C): Record<string, unknown> | undefined;
}

type Slots<Config> = readonly Slot<unknown>[] | ((config: Config) => readonly Slot<unknown>[]);

/**
 * The one shape of a stage, built-in or plugin: a name, the JSON Schema of its config, and a
 * factory, plus every context slot it reads or writes. Config is validated against `schema` when
 * the pipeline is compiled, never per request; `create` runs once per pipeline that uses the
 * stage and may return null when it has nothing to do there.
 *
 * The four slot lists are checked when the pipelines compile: a slot in `requires` must be in
 * the `provides` of a stage before it (or set by the edge); a slot in `reads` must be written by
 * some stage of the gateway (`provides` or `writes`) or the edge, and not only by stages after
 * it that set it before calling next(); a pipeline must hold a `terminal` stage.
 */
export interface StageDefinition<Config = unknown, C extends GatewayContext = GatewayContext> extends ExtensionDefinition<
  Config,
  Middleware<C> | StageInstance<C> | null,
  GatewayServices
> {
  /** Slots a stage before it must provide (the compiler refuses a pipeline that breaks this). */
  requires?: Slots<Config>;
  /** Slots it always sets before calling next() (what a later stage may `require`). */
  provides?: Slots<Config>;
  /** Slots it reads when they are set (optional inputs: before next(), or on the way back after it). */
  reads?: Slots<Config>;
  /**
   * Slots it sets only on some requests, or on the way back (after next() returned, or with the
   * answer it makes): never enough for a `requires`, which needs a slot set before the stage runs.
   */
  writes?: Slots<Config>;
  /**
   * Answers every request that reaches it (sets ctx.response, or fails with the contract's error)
   * without calling next(): forward, not-found, the admin operations. A pipeline without one
   * would end with no answer, and is refused when it compiles.
   */
  terminal?: boolean;
  /** Must run once per request: refused after a stage that repeats the rest of the chain. */
  once?: boolean;
  /** Calls next() once per upstream attempt (fallback, retry): the stages after it run per attempt. */
  repeats?: boolean;
  /**
   * Runs also on a request a stage before it rejected with `ctx.deferRejection` (rate-limit: the
   * refusal is counted and carries the X-RateLimit headers), where the other stages are passed
   * over. Such a stage may not count on the `provides` of the stage that deferred, and the
   * request ends in that rejection whatever the stage does (its next() fails with it).
   */
  seesRejected?: boolean;
}

/**
 * A stage of any config and context, as registries and pipelines hold them: every stage is one
 * (its config and context appear only where it takes them in). Only the compiler opens it
 * (`openStage`): it checks each config against the stage's schema before `create`, and runs
 * the stage on its route's contexts.
 */
export type AnyStageDefinition = StageDefinition<never, never>;

/**
 * A registry's stage as the pipeline compiler uses it: `create` given the config its schema
 * accepted (ExtensionRegistry.validate), the middleware run on the contexts of the routes the
 * pipeline serves (the stage's own context type is its claim about them).
 */
export function openStage(def: AnyStageDefinition): StageDefinition<unknown, GatewayContext> {
  return def as StageDefinition<unknown, GatewayContext>;
}

/**
 * A stage definition, typed (NoInfer: one written where a registry's stage is expected takes its
 * context type from its own `create`, not from AnyStageDefinition's `never`).
 */
export function defineStage<Config, C extends GatewayContext = GatewayContext>(stage: StageDefinition<Config, C>): NoInfer<StageDefinition<Config, C>> {
  return stage;
}

export function slotsOf<Config>(slots: Slots<Config> | undefined, config: Config): readonly Slot<unknown>[] {
  if (!slots) return [];
  return typeof slots === 'function' ? slots(config) : slots;
}
