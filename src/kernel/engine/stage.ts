import type { GatewayContext } from './context.js';
import type { ExtensionDefinition } from './extension.js';
import type { GatewayServices } from './services.js';
import type { Slot } from './slot.js';

/** What a stage runs per request: koa-style middleware over the gateway context. */
export type Middleware<C extends GatewayContext<any> = GatewayContext> = (ctx: C, next: () => Promise<void>) => Promise<void>;

/**
 * A stage as its factory made it, when it does more than run: `decorate` adds headers to every
 * answer of the pipelines that hold the stage (errors included, whether or not the stage ran),
 * `debug` adds fields to error.debug (x-gateway-debug).
 */
export interface StageInstance<C extends GatewayContext<any> = GatewayContext> {
  run: Middleware<C>;
  decorate?(ctx: C, headers: Record<string, string>): void;
  debug?(ctx: C): Record<string, unknown> | undefined;
}

type Slots<Config> = readonly Slot<any>[] | ((config: Config) => readonly Slot<any>[]);

/**
 * The one shape of a stage, built-in or plugin: a name, the JSON Schema of its config, and a
 * factory, plus what it needs from the stages before it and gives the stages after it. Config is
 * validated against `schema` when the pipeline is compiled, never per request; `create` runs
 * once per pipeline that uses the stage and may return null when it has nothing to do there.
 */
export interface StageDefinition<Config = any, C extends GatewayContext<any> = GatewayContext> extends ExtensionDefinition<
  Config,
  Middleware<C> | StageInstance<C> | null,
  GatewayServices
> {
  /** Slots a stage before it must provide (the compiler refuses a pipeline that breaks this). */
  requires?: Slots<Config>;
  /** Slots it sets before calling next(). */
  provides?: Slots<Config>;
  /** Must run once per request: refused after a stage that repeats the rest of the chain. */
  once?: boolean;
  /** Calls next() once per upstream attempt (fallback, retry): the stages after it run per attempt. */
  repeats?: boolean;
}

export function defineStage<Config, C extends GatewayContext<any> = GatewayContext>(stage: StageDefinition<Config, C>): StageDefinition<Config, C> {
  return stage;
}

export function slotsOf<Config>(slots: Slots<Config> | undefined, config: Config): readonly Slot<any>[] {
  if (!slots) return [];
  return typeof slots === 'function' ? slots(config) : slots;
}
