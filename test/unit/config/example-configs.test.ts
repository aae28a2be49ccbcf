import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfigFile } from '../../../src/config/load-config.js';
import { ROOT } from '../../helpers/built-gateway.js';

/** Variables the example configs reference without a default (a deployment supplies them). */
const ENV = {
  DATABASE_URL: 'postgres://gateway@127.0.0.1:5432/gateway',
  TEAM_A_KEY: 'team-a-key-0123456789',
  TEAM_B_KEY: 'team-b-key-0123456789',
};

const examples = readdirSync(join(ROOT, 'examples', 'configs'))
  .filter((name) => /\.(ya?ml|json)$/.test(name))
  .map((name) => join('examples', 'configs', name));

describe('shipped configs stay valid', () => {
  it('there are example configs to check', () => {
    expect(examples.length).toBeGreaterThanOrEqual(3);
  });

  it.each(['gateway.yaml', ...examples])('%s loads against schema/gateway.schema.json', (file) => {
    const config = loadConfigFile(join(ROOT, file), { env: ENV, cwd: ROOT });
    expect(config.server?.port).toEqual(expect.any(Number));
  });

  it.each(['gateway.yaml', ...examples])('%s points editors at the schema', (file) => {
    const first = readFileSync(join(ROOT, file), 'utf8').split('\n')[0];
    expect(first).toMatch(/^# yaml-language-server: \$schema=(\.\.\/\.\.\/|\.\/)schema\/gateway\.schema\.json$/);
  });

  it('gateway.yaml serves on port 8787 on all interfaces with SQLite under ./data', () => {
    const config = loadConfigFile(join(ROOT, 'gateway.yaml'), { env: {}, cwd: ROOT });
    expect(config.server).toMatchObject({ host: '0.0.0.0', port: 8787 });
    expect(config.storage).toMatchObject({ type: 'sqlite', path: join(ROOT, 'data', 'gateway.db') });
  });
});
