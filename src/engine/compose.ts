import type { GatewayContext } from './context.js';
import type { Middleware } from './stage.js';

/**
 * Composes middleware into one function. A stage may call `next()` more than once (the route
 * stage does, once per attempt); each call runs the rest of the chain afresh.
 */
export function compose(chain: Middleware[]): (ctx: GatewayContext) => Promise<void> {
  const run = (index: number, ctx: GatewayContext): Promise<void> => {
    const stage = chain[index];
    if (!stage) return Promise.resolve();
    return stage(ctx, () => run(index + 1, ctx));
  };
  return (ctx) => run(0, ctx);
}
