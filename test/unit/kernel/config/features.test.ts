import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILTIN_FEATURES, buildConfig, checkConfigTree, configSecrets, redactedConfig, registeredFeatures } from '../../../../src/config.js';
import { defineFeature, KERNEL_CONFIG_KEYS, registerFeature } from '../../../../src/kernel/config/features.js';
import { ROOT } from '../../../helpers/built-gateway.js';

/** The features' declarations of their part of the config, as the kernel's loader and secret scan read them. */
describe('feature declarations', () => {
  it('every top-level key of the gateway config is owned by the kernel or by exactly one built-in feature', () => {
    const schema = JSON.parse(readFileSync(join(ROOT, 'schema', 'gateway.schema.json'), 'utf8')) as { properties: Record<string, unknown> };
    const owners = new Map<string, string[]>();
    for (const key of KERNEL_CONFIG_KEYS) owners.set(key, ['kernel']);
    for (const feature of BUILTIN_FEATURES) for (const key of feature.configKeys) owners.set(key, [...(owners.get(key) ?? []), feature.name]);
    const unowned = Object.keys(schema.properties).filter((key) => !owners.has(key));
    const shared = [...owners].filter(([, names]) => names.length > 1);
    const unknown = [...owners.keys()].filter((key) => !(key in schema.properties));
    expect({ unowned, shared, unknown }).toEqual({ unowned: [], shared: [], unknown: [] });
    expect(registeredFeatures().slice(0, BUILTIN_FEATURES.length)).toEqual(BUILTIN_FEATURES);
  });

  it('refuses a key the kernel or another feature owns; the same declaration again is a no-op', () => {
    expect(() => registerFeature(defineFeature({ name: 'takes-server', configKeys: ['server'] }))).toThrow('the config key server is owned by the kernel');
    expect(() => registerFeature(defineFeature({ name: 'takes-auth', configKeys: ['auth'] }))).toThrow('the config key auth is owned by auth');
    expect(() => registerFeature(defineFeature({ name: 'auth', configKeys: [] }))).toThrow('a feature named auth is already registered');
    const count = registeredFeatures().length;
    registerFeature(BUILTIN_FEATURES[0]!);
    expect(registeredFeatures()).toHaveLength(count);
  });

  it('the keys of secrets at rest, current and previous, are secrets: --print-config and the admin config view mask them', () => {
    const current = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
    const previous = 'fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210';
    const config = buildConfig({ secrets: { key: current, previousKeys: [previous] } }, 'test', { env: {}, cwd: '/srv/gw' });
    expect(configSecrets(config)).toEqual(expect.arrayContaining([current, previous]));
    expect((redactedConfig(config) as { secrets: unknown }).secrets).toEqual({ key: '[REDACTED]', previousKeys: ['[REDACTED]'] });
  });

  it('the built-in features say what the start-up line shows of their part, what a cluster primary holds and warns about', async () => {
    const config = buildConfig(
      {
        auth: { enabled: true, type: 'api-key', providerRoutes: true },
        providers: { openai: { baseUrl: 'http://127.0.0.1:9/v1' }, groq: {} },
        mcpServers: { files: { command: 'node' }, web: { url: 'http://127.0.0.1:9/mcp' }, off: { command: 'x', enabled: false } },
      },
      'test',
      { env: {}, cwd: '/srv/gw' },
    );
    const fields = Object.assign({}, ...registeredFeatures().map((f) => f.startupFields?.(config)));
    expect(fields).toEqual({ auth: 'api-key (provider routes too)', mcpServers: ['files (process)', 'web (remote)'], providers: { openai: 'http://127.0.0.1:9/v1' } });
    expect(registeredFeatures().flatMap((f) => f.clusterWarnings?.(config, 2) ?? [])).toEqual([
      { fields: { workers: 2, servers: ['files'] }, message: expect.stringContaining('sessions with process tool servers') },
    ]);
    const shared = Object.assign({}, ...registeredFeatures().map((f) => f.clusterState?.(config)));
    expect(Object.keys(shared).sort()).toEqual(['cache', 'rate-limit']);
    const slot = { key: 'k', ttlMs: 60_000 } as never;
    await shared['rate-limit'].hit([slot]);
    expect(await shared['rate-limit'].hit([slot])).toMatchObject([{ requests: 2 }]);
    await shared.cache.set('a' as never, { status: 200 } as never, 60_000 as never);
    expect(await shared.cache.get('a' as never)).toEqual({ status: 200 });
  });

  it("a registered feature's defaults fill its own keys only; its rules run on their own; its secret fields and containers join the config's secrets", () => {
    registerFeature(
      defineFeature({
        name: 'test-extra',
        configKeys: ['testExtra'],
        defaults: (config) => ({ testExtra: { on: true }, server: { ...config.server, port: 1 } }) as never,
        checks: [
          () => {
            throw new TypeError('a malformed value');
          },
          (config) => (config.server?.port === 9 ? ['server.port: test-extra refuses 9'] : []),
        ],
        secretFields: ['testPin'],
        secretContainers: ['testVault'],
      }),
    );
    const { config, problems } = checkConfigTree({ server: { port: 9 } }, 'test', { env: {}, cwd: '/srv/gw' });
    expect(problems).toEqual(['server.port: test-extra refuses 9']);
    expect((config as Record<string, unknown>).testExtra).toEqual({ on: true });
    expect(config.server?.port).toBe(9);
    const found = configSecrets({ a: { testPin: 'pin-value-1', other: 'plain-value' }, b: { testVault: { ANY: 'vault-value-2' } } });
    expect(found).toEqual(expect.arrayContaining(['pin-value-1', 'vault-value-2']));
    expect(found).not.toContain('plain-value');
  });
});
