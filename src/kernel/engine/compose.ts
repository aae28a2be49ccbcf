import type { GatewayContext } from './context.js';
import type { Middleware } from './stage.js';

/** One compiled stage of a pipeline: its middleware and, with `when:`, the test that decides whether it runs. */
export interface ChainStep {
  run: Middleware;
  when?: (ctx: GatewayContext) => boolean;
  /** Runs on a request whose rejection a stage before it deferred (StageDefinition.seesRejected). */
  seesRejected?: boolean;
}

const DONE: Promise<void> = Promise.resolve();

/**
 * Composes the steps into one function. A stage may call `next()` more than once (fallback and
 * retry do, once per attempt); each call runs the rest of the chain afresh. A step whose
 * `when` does not match is passed over in the same turn: no closure, no await.
 *
 * Once a stage deferred the request's rejection (`ctx.deferRejection`), only the steps that see
 * rejected requests run (rate-limit); the others are passed over, and the chain ends in the
 * rejection, whatever those steps did: the error they threw, or an answer, gives way to it.
 */
export function compose(steps: ChainStep[]): (ctx: GatewayContext) => Promise<void> {
  const n = steps.length;
  const dispatch = (from: number, ctx: GatewayContext): Promise<void> => {
    for (let i = from; i < n; i++) {
      const step = steps[i]!;
      const rejected = ctx.deferredRejection;
      if (rejected !== undefined && !step.seesRejected) continue;
      if (step.when !== undefined && !step.when(ctx)) continue;
      if (rejected !== undefined) return runRejected(step, ctx, rejected, () => dispatch(i + 1, ctx));
      try {
        return step.run(ctx, () => dispatch(i + 1, ctx));
      } catch (err) {
        return Promise.reject(err);
      }
    }
    const rejected = ctx.deferredRejection;
    return rejected === undefined ? DONE : Promise.reject(rejected);
  };
  return (ctx) => dispatch(0, ctx);
}

/** Runs a step that sees a rejected request; the deferred rejection is what it ends in. */
function runRejected(step: ChainStep, ctx: GatewayContext, rejected: Error, next: () => Promise<void>): Promise<void> {
  const answer = (): Promise<void> => Promise.reject(rejected);
  try {
    return step.run(ctx, next).then(answer, answer);
  } catch {
    return answer();
  }
}
