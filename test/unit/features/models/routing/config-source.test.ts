import { describe, expect, it } from 'vitest';
import type { GatewayContext } from '../../../../../src/kernel/engine/context.js';
import { GatewayError } from '../../../../../src/contract/errors/gateway-error.js';
import { PlanError, type PlanEnvironment } from '../../../../../src/features/models/routing/compile-plan.js';
import { RoutingConfigs } from '../../../../../src/features/models/routing/config-source.js';
import { backoffDelay } from '../../../../../src/features/models/stages/retry.js';

const env: PlanEnvironment = { hasProvider: (id) => id === 'openai', providerIds: () => ['openai'], allowCustomHost: false, hasGuardrail: () => false };
const ctx = (headers: Record<string, string>) => ({ headers }) as unknown as GatewayContext;

describe('RoutingConfigs', () => {
  it('compiles a header config once and serves repeats from its cache', () => {
    const configs = new RoutingConfigs({} as any, env);
    const header = JSON.stringify({ strategy: { mode: 'fallback' }, targets: [{ provider: 'openai' }, { provider: 'openai', api_key: 'k' }] });
    const first = configs.planFor(ctx({ 'x-gateway-config': header }));
    expect(first?.root.children).toHaveLength(2);
    expect(configs.planFor(ctx({ 'x-gateway-config': header }))).toBe(first);
  });

  it('answers the same 400 for a repeated bad header, a fresh error each time', () => {
    const configs = new RoutingConfigs({} as any, env);
    const bad = ctx({ 'x-gateway-config': '{"provider": "nope"}' });
    const one = (() => {
      try {
        configs.planFor(bad);
      } catch (err) {
        return err as GatewayError;
      }
    })();
    const two = (() => {
      try {
        configs.planFor(bad);
      } catch (err) {
        return err as GatewayError;
      }
    })();
    expect(one).toBeInstanceOf(GatewayError);
    expect(one!.message).toBe('x-gateway-config: provider: unknown provider "nope" (known: openai)');
    expect(two).not.toBe(one);
    expect(two!.message).toBe(one!.message);
  });

  it('uses routing.defaultConfig when no header is sent, and checks named configs up front', () => {
    const configs = new RoutingConfigs({ configs: { main: { provider: 'openai' } }, routing: { defaultConfig: 'main' } } as any, env);
    expect(configs.planFor(ctx({}))?.root.settings.provider).toBe('openai');
    expect(configs.planFor(ctx({}))?.origin).toBe('operator');
    // x-gateway-provider wins over the default; an explicit config still applies.
    expect(configs.planFor(ctx({ 'x-gateway-provider': 'openai' }))).toBeUndefined();
    expect(configs.planFor(ctx({ 'x-gateway-provider': 'openai', 'x-gateway-config': 'main' }))?.origin).toBe('operator');
    expect(configs.planFor(ctx({ 'x-gateway-config': '{"provider":"openai"}' }))?.origin).toBe('caller');
    expect(() => new RoutingConfigs({ configs: { main: { provider: 'x' } } } as any, env)).toThrow(PlanError);
  });
});

describe('retry backoff', () => {
  it('doubles per retry with jitter in the upper half, capped', () => {
    expect(backoffDelay(0, 100, 2000, () => 0)).toBe(50);
    expect(backoffDelay(0, 100, 2000, () => 1)).toBe(100);
    expect(backoffDelay(2, 100, 2000, () => 0.5)).toBe(300);
    expect(backoffDelay(10, 100, 2000, () => 1)).toBe(2000);
  });
});
