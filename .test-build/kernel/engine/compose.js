const DONE = Promise.resolve();
/**
 * Composes the steps into one function. A stage may call `next()` more than once (fallback and
 * retry do, once per attempt); each call runs the rest of the chain afresh. A step whose
 * `when` does not match is passed over in the same turn: no closure, no await.
 */
export function compose(steps) {
    const n = steps.length;
    const dispatch = (from, ctx) => {
        for (let i = from; i < n; i++) {
            const step = steps[i];
            if (step.when !== undefined && !step.when(ctx))
                continue;
            try {
                return step.run(ctx, () => dispatch(i + 1, ctx));
            }
            catch (err) {
                return Promise.reject(err);
            }
        }
        return DONE;
    };
    return (ctx) => dispatch(0, ctx);
}
//# sourceMappingURL=compose.js.map