import { afterAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfigFile } from '../../src/kernel/config/load-config.js';
import { createGateway } from '../../src/gateway.js';
import { ROOT } from '../helpers/built-gateway.js';
import { LogCollector } from '../helpers/start-gateway.js';

const PG_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const RUN = `${process.pid}_${Date.now()}`;
const schemas: string[] = [];

/** The environment each example's header asks for (secrets made up here; PostgreSQL and Redis are the local ones). */
function envFor(name: string): Record<string, string> {
  const secret = () => randomBytes(24).toString('hex');
  const schema = `gw_example_${name.replace(/\W/g, '_')}_${RUN}`;
  const shared = { GATEWAY_ADMIN_TOKEN: secret(), DATABASE_URL: PG_URL, REDIS_URL: 'redis://127.0.0.1:6379', GATEWAY_REDIS_PREFIX: `gw:test:${RUN}:${name}:` };
  switch (name) {
    case 'production.yaml':
    case 'compose.yaml':
      schemas.push(schema);
      return { ...shared, GATEWAY_DB_SCHEMA: schema, TEAM_A_KEY: secret(), TEAM_B_KEY: secret() };
    case 'catalogue.yaml':
      return { ...shared, GATEWAY_SECRET_KEY: randomBytes(32).toString('hex'), OPENAI_API_KEY: `sk-${secret()}`, ANTHROPIC_API_KEY: `sk-ant-${secret()}` };
    case 'mcp-gateway.yaml':
      return { ...shared, IDENTITY_SIGNING_SECRET: secret() };
    case 'mcp-oauth-server.yaml':
      return { ALICE_GATEWAY_KEY: secret(), GATEWAY_SECRET_KEY: randomBytes(32).toString('hex') };
    default:
      return {};
  }
}

const EXAMPLES = readdirSync(join(ROOT, 'examples', 'configs')).filter((f) => /\.(ya?ml|json)$/.test(f));

describe('every config in examples/configs starts and gets ready', () => {
  afterAll(async () => {
    if (!schemas.length) return;
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  });

  it('has the common setups', () => {
    for (const name of ['minimal.yaml', 'local-models.yaml', 'production.yaml', 'compose.yaml', 'mcp-gateway.yaml', 'with-plugin.yaml', 'catalogue.yaml', 'mcp-oauth-server.yaml'])
      expect(EXAMPLES).toContain(name);
  });

  for (const name of EXAMPLES) {
    it(`${name}: /health, /ready and /metrics answer, and it closes cleanly`, async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'gw-example-'));
      const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...envFor(name), GATEWAY_DATA_DIR: dataDir };
      const config = loadConfigFile(join(ROOT, 'examples', 'configs', name), { env });
      // The examples use GATEWAY_PORT, as documented: it is an override, not a ${...} of their own.
      expect(config.server?.port ?? 8787).toBe(8787);
      const logs = new LogCollector();
      const gateway = await createGateway(config, { logDestination: logs });
      try {
        const url = await gateway.listen(0, '127.0.0.1');
        expect((await fetch(`${url}/health`)).status).toBe(200);
        let ready = 0;
        for (let i = 0; i < 200 && ready !== 200; i++) {
          ready = (await fetch(`${url}/ready`)).status;
          if (ready !== 200) await new Promise((r) => setTimeout(r, 100));
        }
        expect(ready, logs.text).toBe(200);
        const metrics = await (await fetch(`${url}/metrics`)).text();
        expect(metrics).toContain('gateway_requests_total');
      } finally {
        await gateway.close(2000);
        rmSync(dataDir, { recursive: true, force: true });
      }
    }, 60_000);
  }
});
