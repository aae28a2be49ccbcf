/**
 * The budget check between the model calls of a loop, through the request's meter (read only):
 * the meter reserved the first call's worst case before the loop; the loop may spend that and
 * what the tightest money budget had left after it. Once the loop's model calls so far cost that
 * much, no further model call is made (the loop ends with the answer so far).
 */
import type { GatewayServices } from '../../kernel/engine/services.js';
import { BODY } from '../../kernel/engine/request-body.js';
import { METER, METER_DEPS, costOf, usageClasses } from '../governance/index.js';
import { TARGET, type ModelContext } from '../models/index.js';

type Json = Record<string, unknown>;

/** Whether the loop's usage so far used up the request's money budget; undefined when no money budget applies. */
export function budgetCheck(ctx: ModelContext, services: GatewayServices): ((usage: Json | null) => boolean) | undefined {
  const meter = ctx.get(METER);
  const deps = services.get(METER_DEPS);
  if (!meter || !deps || meter.remainingAfterReserve === undefined) return undefined;
  const headroom = (meter.reservation?.micros ?? 0) + meter.remainingAfterReserve;
  return (usage) => {
    if (!usage) return false;
    const target = ctx.get(TARGET);
    const override = target?.overrideParams?.model;
    const body = ctx.get(BODY) as Json | undefined;
    const model = typeof override === 'string' ? override : typeof body?.model === 'string' ? body.model : undefined;
    if (!target || !model) return false;
    const price = deps.inputs.priceOf(ctx, target.provider, model);
    const spent = price ? costOf(price, usageClasses(usage))?.micros : undefined;
    return spent !== undefined && spent >= headroom;
  };
}
