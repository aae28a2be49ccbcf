import type { GatewayContext } from './context.js';
import type { GatewayServices } from './services.js';

/** What a stage's factory returns: koa-style middleware over the gateway context. */
export type Middleware = (ctx: GatewayContext, next: () => Promise<void>) => Promise<void>;

/**
 * The one shape of a stage, built-in or plugin: a name, the JSON Schema of its config, and a
 * factory. Config is validated against `schema` when the pipeline is compiled, never per
 * request; `create` runs once per pipeline that uses the stage.
 */
export interface StageDefinition<Config = any> {
  name: string;
  description?: string;
  schema: Record<string, unknown>;
  create(config: Config, services: GatewayServices): Middleware;
}

export function defineStage<Config>(stage: StageDefinition<Config>): StageDefinition<Config> {
  return stage;
}
