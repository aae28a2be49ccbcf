import type { GatewayContext } from './context.js';
import type { Middleware } from './stage.js';

/** One compiled stage of a pipeline: its middleware and, with `when:`, the test that decides whether it runs. */
export interface ChainStep {
  run: Middleware;
  when?: (ctx: GatewayContext) => boolean;
}

const DONE: Promise<void> = Promise.resolve();

/**
 * Composes the steps into one function. A stage may call `next()` more than once (fallback and
 * retry do, once per attempt); each call runs the rest of the chain afresh. A step whose
 * `when` does not match is passed over in the same turn: no closure, no await.
 */
export function compose(steps: ChainStep[]): (ctx: GatewayContext) => Promise<void> {
  const n = steps.length;
  const dispatch = (from: number, ctx: GatewayContext): Promise<void> => {
    for (let i = from; i < n; i++) {
      const step = steps[i]!;
      if (step.when !== undefined && !step.when(ctx)) continue;
      try {
        return step.run(ctx, () => dispatch(i + 1, ctx));
      } catch (err) {
        return Promise.reject(err);
      }
    }
    return DONE;
  };
  return (ctx) => dispatch(0, ctx);
}
