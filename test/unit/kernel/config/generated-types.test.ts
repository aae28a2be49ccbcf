import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../../helpers/built-gateway.js';

/** `npm run gen:types` / `npm run check:types`: the schemas in schema/ are the source of the types in src/generated/. */
describe('generated types (scripts/generate-types.mjs)', { timeout: 120_000 }, () => {
  let copy: string;

  const run = (cwd: string, ...args: string[]) => spawnSync(process.execPath, [join(cwd, 'scripts', 'generate-types.mjs'), ...args], { cwd, encoding: 'utf8' });

  beforeAll(() => {
    // A copy of the parts the generator reads and writes, sharing the real node_modules.
    copy = mkdtempSync(join(tmpdir(), 'gw-gen-types-'));
    for (const part of ['scripts', 'schema', join('src', 'generated')]) cpSync(join(ROOT, part), join(copy, part), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  });
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('the committed src/generated matches schema/ (npm run check:types passes)', () => {
    const result = run(ROOT, '--check');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('generated types match schema/');
  });

  it('fails the check when a schema changes without regenerating, and passes once regenerated', () => {
    const schemaFile = join(copy, 'schema', 'requests', 'embeddings.schema.json');
    const schema = JSON.parse(readFileSync(schemaFile, 'utf8'));
    schema.properties.drift_probe = { type: 'string', description: 'added by the drift test' };
    writeFileSync(schemaFile, JSON.stringify(schema, null, 2));

    const drifted = run(copy, '--check');
    expect(drifted.status).toBe(1);
    expect(drifted.stderr).toContain('Generated types are out of date with schema/ (run npm run gen:types)');
    expect(drifted.stderr).toContain(join('src', 'generated', 'requests', 'embeddings.ts'));
    expect(drifted.stderr).not.toContain('chat-completions.ts');

    const generated = run(copy);
    expect(generated.status).toBe(0);
    expect(readFileSync(join(copy, 'src', 'generated', 'requests', 'embeddings.ts'), 'utf8')).toMatch(/drift_probe\?: string;/);
    expect(run(copy, '--check').status).toBe(0);
  });

  it('fails the check when a generated file is edited by hand', () => {
    const target = join(copy, 'src', 'generated', 'pipeline.ts');
    writeFileSync(target, `${readFileSync(target, 'utf8')}\nexport type HandWritten = string;\n`);
    const result = run(copy, '--check');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(join('src', 'generated', 'pipeline.ts'));
  });
});
