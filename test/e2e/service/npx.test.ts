import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../../helpers/built-gateway.js';
import { packageFolder } from '../../helpers/npm-start.js';

const run = promisify(execFile);
const pkgJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

/** The package as npm sees it: a name that is ours, never published by accident, and a bin npx runs. */
describe('the package and its bin (npx)', { timeout: 120_000 }, () => {
  let pkg: string;
  let elsewhere: string;
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', npm_config_update_notifier: 'false', npm_config_yes: 'true' };

  beforeAll(() => {
    pkg = packageFolder();
    elsewhere = mkdtempSync(join(tmpdir(), 'gw-npx-cwd-'));
  }, 240_000);
  afterAll(() => {
    rmSync(pkg, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
  });

  it('is scoped (not the unrelated unscoped `ai-gateway` on npm) and private until published', () => {
    expect(pkgJson.name).toBe('@pipeline-gateway/ai-gateway');
    expect(pkgJson.private).toBe(true);
    expect(pkgJson.bin).toEqual({ 'ai-gateway': 'dist/main.js' });
    expect(readFileSync(join(ROOT, 'src', 'main.ts'), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('`npx ai-gateway` in a clone runs its own bin, not a package from the registry', async () => {
    const { stdout } = await run('npx', ['ai-gateway', '--version'], { cwd: pkg, env });
    expect(stdout).toBe(`${pkgJson.version}\n`);
  });

  it('`npx <folder>` from anywhere runs the gateway of that folder', async () => {
    const { stdout } = await run('npx', [pkg, '--help'], { cwd: elsewhere, env });
    expect(stdout).toContain('Usage: ai-gateway [--config <path>]');
  });
});
