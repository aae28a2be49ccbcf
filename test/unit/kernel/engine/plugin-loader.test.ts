import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPlugins } from '../../../../src/kernel/engine/plugin-loader.js';
import { StageRegistry } from '../../../../src/kernel/engine/stage-registry.js';
import { openStage } from '../../../../src/kernel/engine/stage.js';
import { ExtensionKinds } from '../../../../src/kernel/engine/extension.js';
import { ProviderRegistry } from '../../../../src/features/models/providers/provider-registry.js';
import { createCheckRegistry } from '../../../../src/features/guardrails/check-kind.js';
import { createAuthModeRegistry } from '../../../../src/features/auth/modes/auth-mode.js';
import { BUILTIN_STAGES } from '../../../../src/stages/builtin-stages.js';
import { ROOT } from '../../../helpers/built-gateway.js';

describe('loadPlugins', () => {
  let dir: string;
  const header = join(ROOT, 'examples', 'plugins', 'header-stamp.mjs');

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gw-plugins-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function plugin(name: string, source: string): string {
    const path = join(dir, name);
    writeFileSync(path, source);
    return path;
  }

  function registries() {
    const kinds = new ExtensionKinds();
    const stages = kinds.add(new StageRegistry());
    for (const stage of BUILTIN_STAGES) stages.register(stage);
    const providers = new ProviderRegistry();
    kinds.add(providers.definitions);
    const checks = kinds.add(createCheckRegistry());
    const authModes = kinds.add(createAuthModeRegistry());
    return { kinds, stages, providers, checks, authModes };
  }

  it('registers the example plugin stage (named exports: name, schema, create)', async () => {
    const { kinds, stages } = registries();
    expect(await loadPlugins([header], kinds)).toEqual([]);
    const stage = stages.get('header-stamp')!;
    expect(stage.description).toBe('Adds a configured header to every answer.');
    expect(stage.schema).toMatchObject({ required: ['header', 'value'] });
  });

  it('the example stage adds its header to the answer and runs the rest of the chain', async () => {
    const { kinds, stages } = registries();
    await loadPlugins([header], kinds);
    const middleware = openStage(stages.get('header-stamp')!).create({ header: 'X-Served-By', value: 'eu-1' }, {} as never) as (
      c: unknown,
      n: () => Promise<void>,
    ) => Promise<void>;
    const ctx = { responseHeaders: {} as Record<string, string> };
    let ran = false;
    await middleware(ctx as never, async () => {
      ran = true;
    });
    expect(ctx.responseHeaders).toEqual({ 'x-served-by': 'eu-1' });
    expect(ran).toBe(true);
  });

  it('accepts a default export, and lists of stages', async () => {
    const one = plugin('default-export.mjs', `export default { name: 'tag-one', schema: { type: 'object' }, create: () => async (_c, next) => next() };`);
    const many = plugin(
      'many.mjs',
      `const s = (name) => ({ name, schema: { type: 'object' }, create: () => async (_c, next) => next() });
       export const stages = [s('tag-two'), s('tag-three')];`,
    );
    const { kinds, stages } = registries();
    expect(await loadPlugins([one, many], kinds)).toEqual([]);
    expect(['tag-one', 'tag-two', 'tag-three'].every((n) => stages.get(n))).toBe(true);
  });

  it('registers definitions tagged with their kind (what the define* helpers return) under any export name, once each', async () => {
    const tagged = plugin(
      'tagged.mjs',
      `export const stamp = { kind: 'stage', name: 'tagged-stage', schema: { type: 'object' }, create: () => async (_c, next) => next() };
       export const words = { kind: 'guardrail-check', name: 'tagged-check', schema: { type: 'object' }, create: () => () => ({ passed: true, detail: 'ok' }) };
       export const secret = { kind: 'auth-mode', name: 'tagged-mode', schema: { type: 'object' }, create: () => ({ authenticate: async () => ({ kind: 'x', id: 'x' }) }) };
       export default { stages: [stamp] };`,
    );
    const { kinds, stages, checks, authModes } = registries();
    expect(await loadPlugins([tagged], kinds)).toEqual([]);
    expect(stages.get('tagged-stage')).toBeDefined();
    expect(stages.get('tagged-stage')).not.toHaveProperty('kind');
    expect(checks.get('tagged-check')).toBeDefined();
    expect(authModes.get('tagged-mode')).toBeDefined();
  });

  it('names the plugin that cannot be loaded, exports nothing usable, or breaks the stage shape', async () => {
    const missing = join(dir, 'missing.mjs');
    const empty = plugin('empty.mjs', 'export const version = 1;');
    const noSchema = plugin('no-schema.mjs', `export const name = 'bare'; export function create() { return async () => {}; }`);
    const badName = plugin('bad-name.mjs', `export const name = 'Bad Name'; export const schema = {}; export function create() {}`);
    const clash = plugin('clash.mjs', `export const name = 'forward'; export const schema = {}; export function create() {}`);
    const syntax = plugin('syntax.mjs', 'export const = ;');
    const { kinds, stages } = registries();
    const problems = await loadPlugins([missing, empty, noSchema, badName, clash, syntax], kinds);
    expect(problems).toHaveLength(6);
    expect(problems[0]).toMatch(new RegExp(`^plugins\\[0\\] \\(${missing}\\): cannot be loaded: `));
    expect(problems[1]).toBe(
      `plugins[1] (${empty}): exports no extension ({ name, schema, create }, with kind auth-mode, guardrail-check, provider, stage) and no authModes, checks, providers, stages, extensions list`,
    );
    expect(problems[2]).toBe(`plugins[2] (${noSchema}): stage bare has no config schema`);
    expect(problems[3]).toBe(`plugins[3] (${badName}): stage name must be lower-case words joined by '-' (got "Bad Name")`);
    expect(problems[4]).toBe(`plugins[4] (${clash}): a stage named forward is already registered`);
    expect(problems[5]).toMatch(new RegExp(`^plugins\\[5\\] \\(${syntax}\\): cannot be loaded: `));
    expect(stages.get('forward')).toBe(BUILTIN_STAGES.find((s) => s.name === 'forward'));
  });
});
