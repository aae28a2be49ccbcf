import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfigFile } from '../../../../src/config.js';
import { ROOT } from '../../../helpers/built-gateway.js';

/** Variables the example configs reference without a default (a deployment supplies them). */
const ENV = {
  DATABASE_URL: 'postgres://gateway@127.0.0.1:5432/gateway',
  TEAM_A_KEY: 'team-a-key-0123456789',
  TEAM_B_KEY: 'team-b-key-0123456789',
  GATEWAY_ADMIN_TOKEN: 'f3b1c9e07a5d4e2b8c6a9f1d3e5b7a90c2d4e6f8',
  IDENTITY_SIGNING_SECRET: '9a8b7c6d5e4f30211234567890abcdef',
  GATEWAY_SECRET_KEY: 'ab'.repeat(32),
  OPENAI_API_KEY: 'sk-example-openai-0001',
  ANTHROPIC_API_KEY: 'sk-ant-example-0002',
  ALICE_GATEWAY_KEY: 'alice-key-example-0123456789',
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

  it.each(['gateway.yaml', ...examples])('%s ships no admin token or signing secret: without one in the environment it has none or does not start', (file) => {
    const env: Record<string, string> = { ...ENV };
    delete env.GATEWAY_ADMIN_TOKEN;
    delete env.IDENTITY_SIGNING_SECRET;
    let config;
    try {
      config = loadConfigFile(join(ROOT, file), { env, cwd: ROOT });
    } catch (err) {
      expect((err as { problems: string[] }).problems.join('\n')).toMatch(/^(auth\.adminToken|identityForwarding\.signingSecret): /m);
      return;
    }
    expect(config.auth?.adminToken).toBeUndefined();
    expect(config.identityForwarding?.signingSecret).toBeUndefined();
  });

  it.each(['change-me-to-a-long-random-string', 'change-me-identity-signing-secret'])('the placeholder %s, once shipped, is refused as an admin token', (value) => {
    expect(() => loadConfigFile(join(ROOT, 'gateway.yaml'), { env: { GATEWAY_ADMIN_TOKEN: value }, cwd: ROOT })).toThrow(/auth\.adminToken: is a placeholder/);
  });

  it('gateway.yaml serves on port 8787 on all interfaces with SQLite under ./data', () => {
    const config = loadConfigFile(join(ROOT, 'gateway.yaml'), { env: {}, cwd: ROOT });
    expect(config.server).toMatchObject({ host: '0.0.0.0', port: 8787 });
    expect(config.storage).toMatchObject({ type: 'sqlite', path: join(ROOT, 'data', 'gateway.db') });
  });
});
