import { describe, expect, it } from 'vitest';
import { compilePlan, type PlanEnvironment } from '../../../../src/features/models/routing/compile-plan.js';
import { candidatesOf } from '../../../../src/features/governance/metering/meter.js';

const env: PlanEnvironment = {
  hasProvider: (id) => ['openai', 'groq'].includes(id),
  providerIds: () => ['groq', 'openai'],
  allowCustomHost: false,
  hasGuardrail: () => false,
};

describe('candidatesOf: the upstream candidates a reservation prices', () => {
  it('lists each leaf target with its model override, else the model the request asked for, whichever model was asked last', () => {
    const plan = compilePlan(
      {
        strategy: { mode: 'fallback' },
        targets: [
          { provider: 'openai', override_params: { model: 'gpt-4o-mini' } },
          { provider: 'groq' },
          { strategy: { mode: 'loadbalance' }, provider: 'openai', targets: [{ weight: 1 }, { weight: 1, override_params: { model: 'gpt-4o' } }] },
        ],
      } as never,
      env,
      'operator',
    );
    const expected = (asked: string | undefined) => [
      { provider: 'openai', model: 'gpt-4o-mini' },
      { provider: 'groq', model: asked },
      { provider: 'openai', model: asked },
      { provider: 'openai', model: 'gpt-4o' },
    ];
    // asked in turn, and again: a list kept for one model is never answered for another
    for (const asked of ['llama-3', 'llama-3', 'mixtral', undefined, 'llama-3']) expect(candidatesOf({ plan }, asked)).toEqual(expected(asked));
    // kept per plan: the same request asks the same plan for the same list
    expect(candidatesOf({ plan }, 'x')).toBe(candidatesOf({ plan }, 'x'));
    expect(Object.isFrozen(candidatesOf({ plan }, 'x')[0])).toBe(true);
  });

  it('a single target from the headers: its provider, with its override or the model asked', () => {
    expect(candidatesOf({ single: { provider: 'groq' } } as never, 'llama-3')).toEqual([{ provider: 'groq', model: 'llama-3' }]);
    expect(candidatesOf({ single: { provider: 'groq', overrideParams: { model: 'm' } } } as never, 'llama-3')).toEqual([{ provider: 'groq', model: 'm' }]);
    expect(candidatesOf(undefined, 'llama-3')).toEqual([]);
  });
});
