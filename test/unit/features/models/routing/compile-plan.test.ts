import { describe, expect, it } from 'vitest';
import { compilePlan, PlanError, type PlanEnvironment } from '../../../../../src/features/models/routing/compile-plan.js';
import { planAt } from '../../../../../src/features/models/routing/plan.js';

const env: PlanEnvironment = {
  hasProvider: (id) => ['openai', 'groq', 'azure-openai'].includes(id),
  providerIds: () => ['azure-openai', 'groq', 'openai'],
  allowCustomHost: false,
  hasGuardrail: (id) => id === 'no-pii',
};

function problems(config: unknown, e: PlanEnvironment = env): string[] {
  try {
    compilePlan(config as any, e, 'caller');
  } catch (err) {
    if (err instanceof PlanError) return err.problems;
    throw err;
  }
  return [];
}

describe('compilePlan: provider settings in targets', () => {
  it('takes the settings providers declare (a data file option, a plugin field) and refuses names no provider declares', () => {
    const declared = { hasProvider: () => true, providerIds: () => ['cloudflare-workers-ai'], allowCustomHost: false, hasGuardrail: () => false };
    const plan = compilePlan({ provider: 'cloudflare-workers-ai', cloudflare_account_id: '0123456789abcdef0123456789abcdef' } as any, declared, 'operator');
    expect(plan.root.settings.options).toEqual({ cloudflare_account_id: '0123456789abcdef0123456789abcdef' });
    expect(problems({ provider: 'cloudflare-workers-ai', cloudflare_acount_id: 'x' }, declared)).toEqual([
      'cloudflare_acount_id: is no routing-target field, and no provider declares it as a setting',
    ]);
    expect(problems({ provider: 'cloudflare-workers-ai', cloudflare_account_id: '../x' }, declared)).toEqual([
      'cloudflare_account_id: must be a Cloudflare account id (32 hexadecimal characters)',
    ]);
  });
});

describe('compilePlan', () => {
  it('gives nested targets index paths and resolves inheritance', () => {
    const plan = compilePlan(
      {
        strategy: { mode: 'fallback' },
        provider: 'openai',
        api_key: 'sk-root',
        retry: { attempts: 2 },
        cache: { mode: 'simple', max_age: 60 },
        request_timeout: 5000,
        idle_timeout: 700,
        override_params: { temperature: 0, model: 'root-model' },
        forward_headers: ['x-trace'],
        azure_api_version: '2024-02-01',
        targets: [
          { api_key: 'sk-a' },
          {
            strategy: { mode: 'loadbalance' },
            retry: { attempts: 1, on_status_codes: [503] },
            override_params: { model: 'group-model' },
            targets: [
              { provider: 'groq', weight: 3, override_params: { top_p: 0.5 }, cache: { mode: 'disabled' } },
              { weight: 1, idle_timeout: 100, azure_api_version: '2025-01-01' },
            ],
          },
        ],
      },
      env,
      'operator',
    );
    const [a, group] = plan.root.children!;
    expect(plan.requestTimeout).toBe(5000);
    expect(a!.index).toBe('0');
    expect(a!.settings).toMatchObject({ provider: 'openai', apiKey: 'sk-a', retry: { attempts: 2 }, idleTimeout: 700, forwardHeaders: ['x-trace'] });
    expect(group!.index).toBe('1');
    expect(group!.mode).toBe('loadbalance');
    const [g0, g1] = group!.children!;
    expect(g0!.index).toBe('1.0');
    expect(g1!.index).toBe('1.1');
    // retry and cache are replaced as a whole by the child that sets them (Retry-After honoured by default).
    expect(g0!.settings.retry).toEqual({ attempts: 1, on_status_codes: [503], use_retry_after_header: true });
    expect(g0!.settings.cache).toEqual({ mode: 'disabled' });
    expect(g1!.settings.cache).toEqual({ mode: 'simple', max_age: 60 });
    // override_params merge down the tree, the child winning.
    expect(g0!.settings.overrideParams).toEqual({ temperature: 0, model: 'group-model', top_p: 0.5 });
    expect(g0!.settings).toMatchObject({ provider: 'groq', apiKey: 'sk-root' });
    expect(g1!.settings).toMatchObject({ provider: 'openai', idleTimeout: 100, options: { azure_api_version: '2025-01-01' } });
    expect(g0!.settings.options).toEqual({ azure_api_version: '2024-02-01' });
    expect(g0!.weight).toBe(3);
    expect(g1!.secrets).toContain('sk-root');
  });

  it('makes a config without targets a single target with index 0', () => {
    const plan = compilePlan({ provider: 'openai', api_key: 'k' }, env, 'caller');
    expect(plan.root.children).toBeUndefined();
    expect(plan.root.index).toBe('0');
  });

  it("knows who wrote a config: custom_host is the operator's right, and only an operator's secrets are held", () => {
    const config = { targets: [{ provider: 'openai', api_key: 'sk-x', custom_host: 'http://h.example/v1' }, { provider: 'groq' }] };
    expect(problems(config)).toEqual(['targets[0].custom_host: is not allowed: this gateway does not set routing.allowCustomHost']);
    const operator = compilePlan(config as any, env, 'operator');
    expect(operator.origin).toBe('operator');
    expect(operator.root.children!.map((c) => [c.heldSecrets, c.callerHost])).toEqual([
      [true, false],
      [false, false],
    ]);
    const caller = compilePlan(config as any, { ...env, allowCustomHost: true }, 'caller');
    expect(caller.root.children!.map((c) => [c.heldSecrets, c.callerHost])).toEqual([
      [false, true],
      [false, false],
    ]);
  });

  it('refuses forward_headers naming host, hop-by-hop, gateway-set or operator headers, in both origins', () => {
    const config = { provider: 'openai', forward_headers: ['x-trace', 'HOST', 'upgrade', 'x-api-key', 'X-Tenant'] };
    const e = { ...env, operatorHeaders: new Set(['x-tenant']) };
    const lines = problems(config, e);
    expect(lines.map((l) => l.split(':')[0])).toEqual(['forward_headers[1]', 'forward_headers[2]', 'forward_headers[3]', 'forward_headers[4]']);
    expect(() => compilePlan(config as any, e, 'operator')).toThrow(PlanError);
  });

  it('defaults to fallback for several targets without a strategy', () => {
    expect(compilePlan({ targets: [{ provider: 'openai' }, { provider: 'groq' }] }, env, 'caller').root.mode).toBe('fallback');
  });

  it('reports unknown providers, custom hosts, unknown guardrails and bad conditions with their key paths', () => {
    expect(
      problems({
        strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.x': { $bad: 1 } }, then: 'nope' }], default: 'missing' },
        targets: [
          { name: 'a', provider: 'anthropix' },
          { name: 'b', provider: 'openai', custom_host: 'http://evil.example', input_guardrails: ['no-pii', 'nope'] },
        ],
      }),
    ).toEqual([
      'targets[0].provider: unknown provider "anthropix" (known: azure-openai, groq, openai)',
      'targets[1].custom_host: is not allowed: this gateway does not set routing.allowCustomHost',
      'targets[1].input_guardrails[1]: names no guardrail (guardrails.nope is not defined)',
      'strategy.conditions[0].then: names no target of this group ("nope")',
      'strategy.conditions[0].query.metadata.x.$bad: unknown operator $bad (known: $eq $ne $in $nin $gt $gte $lt $lte $regex $and $or)',
      'strategy.default: names no target of this group ("missing")',
    ]);
  });

  it('accepts custom_host where routing.allowCustomHost is on, and checks it is a URL', () => {
    const open = { ...env, allowCustomHost: true };
    expect(problems({ provider: 'openai', custom_host: 'http://127.0.0.1:9/v1' }, open)).toEqual([]);
    expect(problems({ provider: 'openai', custom_host: 'ftp://x' }, open)).toEqual(['custom_host: must be an http(s) URL']);
  });

  it('refuses a loadbalance group whose weights are all zero, and strategies without targets', () => {
    expect(problems({ strategy: { mode: 'loadbalance' }, targets: [{ provider: 'openai', weight: 0 }] })).toEqual([
      'targets: loadbalance needs at least one target with a weight above 0',
    ]);
    expect(problems({ provider: 'openai', strategy: { mode: 'fallback' } })).toEqual(['strategy.mode: fallback needs targets to choose from']);
    expect(problems({ strategy: { mode: 'conditional' }, targets: [{ provider: 'openai' }] })).toEqual(['strategy: conditional mode needs conditions or a default']);
  });
});

describe('planAt', () => {
  it('narrows a plan to one leaf target by index path, its inherited settings kept, and finds no group nor unknown index', () => {
    const plan = compilePlan(
      {
        strategy: { mode: 'fallback' },
        provider: 'openai',
        override_params: { model: 'root-model' },
        targets: [
          { api_key: 'sk-a' },
          {
            strategy: { mode: 'loadbalance' },
            targets: [{ provider: 'groq', api_key: 'sk-b' }, { api_key: 'sk-c' }],
          },
        ],
      } as any,
      env,
      'operator',
    );
    const leaf = planAt(plan, '1.1');
    expect(leaf?.root.index).toBe('1.1');
    expect(leaf?.root.children).toBeUndefined();
    expect(leaf?.root.settings).toMatchObject({ provider: 'openai', apiKey: 'sk-c', overrideParams: { model: 'root-model' } });
    expect(leaf?.origin).toBe('operator');
    expect(planAt(plan, '1.0')?.firstProvider).toBe('groq');
    expect(planAt(plan, '1')).toBeUndefined();
    expect(planAt(plan, '2')).toBeUndefined();
  });
});
