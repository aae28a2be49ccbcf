import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfigFile } from '../../../src/config.js';
import { checkConfig, problemLines } from '../../../src/cli/check.js';

/** What start-up prints for a config file it refuses (serve: one line per problem). */
function startupLines(path: string): string[] {
  try {
    loadConfigFile(path);
  } catch (err) {
    return problemLines(err);
  }
  return [];
}

/** --check names a config's problems as start-up does: nothing the compile of a refused value adds. */
describe('--check and start-up print the same problems', () => {
  let dir: string;
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gw-check-'));
    delete process.env.GW_CHECK_TEST_UNSET_BASE_URL;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a gateway key too short: the schema line only (no Node error text from the compile)', async () => {
    const path = file('short-key.yaml', 'auth:\n  apiKeys:\n    - key: a\n');
    const expected = ['auth.apiKeys[0].key: must be at least 8 characters'];
    expect(startupLines(path)).toEqual(expected);
    expect(await checkConfig(path)).toEqual(expected);
  });

  it('an unset variable: its line only (not a pattern error about the empty value it left)', async () => {
    const path = file('unset.yaml', 'providers:\n  openai:\n    baseUrl: ${GW_CHECK_TEST_UNSET_BASE_URL}\n');
    const expected = ['providers.openai.baseUrl: environment variable GW_CHECK_TEST_UNSET_BASE_URL is not set and has no default'];
    expect(startupLines(path)).toEqual(expected);
    expect(await checkConfig(path)).toEqual(expected);
  });

  it("a pipeline's problem is still named beside the config's", async () => {
    mkdirSync(join(dir, 'pipes'));
    writeFileSync(join(dir, 'pipes', 'chat.yaml'), 'name: chat\nroutes: ["POST /v1/chat/completions"]\nstages:\n  - normalize-error\n  - teleport\n');
    const path = file('both.yaml', `auth:\n  apiKeys:\n    - key: a\npipelines:\n  dir: ${join(dir, 'pipes')}\n`);
    const lines = await checkConfig(path);
    expect(lines[0]).toBe('auth.apiKeys[0].key: must be at least 8 characters');
    expect(lines.slice(1)).toEqual([expect.stringMatching(/pipes\/chat\.yaml: stages\[1\]: unknown stage "teleport"/)]);
  });
});
