import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, buildGateway, freePort, spawnGateway, waitForHealth, type GatewayProcess } from '../helpers/built-gateway.js';

/**
 * Start-up as an operator sees it: the built gateway (`node dist/main.js`) run as a process.
 * A bad config or pipeline exits with code 1 and one line per problem on stderr, naming the key.
 */
describe('gateway start-up (the built process)', { timeout: 90_000 }, () => {
  let dir: string;
  const running: GatewayProcess[] = [];

  beforeAll(() => {
    buildGateway(); // compiles src/ once per change (slow on a busy machine)
    dir = mkdtempSync(join(tmpdir(), 'gw-startup-'));
  }, 240_000);
  afterAll(() => {
    for (const p of running) p.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  function file(name: string, text: string): string {
    const path = join(dir, name);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
    return path;
  }

  async function failsWith(args: string[], env: Record<string, string> = {}): Promise<string[]> {
    const proc = spawnGateway(args, { env: { GATEWAY_DATA_DIR: join(dir, 'data'), ...env } });
    running.push(proc);
    const { code } = await proc.exited;
    expect(code, proc.stderr()).toBe(1);
    return proc
      .stderr()
      .split('\n')
      .filter((l) => l !== '');
  }

  async function startsOn(args: string[], env: Record<string, string> = {}) {
    const port = await freePort();
    const proc = spawnGateway(args, { env: { GATEWAY_DATA_DIR: join(dir, 'data'), GATEWAY_PORT: String(port), ...env } });
    running.push(proc);
    const url = `http://127.0.0.1:${port}`;
    await waitForHealth(url, proc);
    return { proc, url };
  }

  async function stop(proc: GatewayProcess) {
    proc.child.kill('SIGTERM');
    const { code } = await proc.exited;
    expect(code).toBe(0);
  }

  it('names the key of an invalid enum value, alone on one line', async () => {
    const config = file('bad-auth.yaml', 'auth:\n  enabled: true\n  type: password\n');
    expect(await failsWith(['--config', config])).toEqual(['auth.type: must be one of bearer, api-key, oauth, mtls']);
  });

  it('prints one line per problem', async () => {
    const config = file('many.yaml', ['server:', '  port: not-a-port', 'logging:', '  level: loud', 'colour: blue', 'rateLimits:', '  - per: key', '    window: 10s'].join('\n'));
    const lines = await failsWith(['--config', config]);
    expect(lines.sort()).toEqual(
      [
        'colour: is not a known key',
        'logging.level: must be one of fatal, error, warn, info, debug, trace, silent',
        'rateLimits[0].limit: is required',
        'server.port: must be integer',
      ].sort(),
    );
  });

  it('names the key whose ${VAR} is unset and has no default', async () => {
    const config = file('env.yaml', 'storage:\n  type: postgres\n  url: ${GW_TEST_DATABASE_URL}\n');
    expect(await failsWith(['--config', config])).toEqual(['storage.url: environment variable GW_TEST_DATABASE_URL is not set and has no default']);
  });

  it.each([
    [{ GATEWAY_AUTH_TYPE: 'magic' }, 'auth.type: must be one of bearer, api-key, oauth, mtls'],
    [{ GATEWAY_AUTH_ENABLED: 'perhaps' }, 'auth.enabled: must be boolean'],
    [{ GATEWAY_PORT: 'eighty' }, 'server.port: must be integer'],
    [{ GATEWAY_ADMIN_TOKEN: 'short' }, 'auth.adminToken: must be at least 32 characters (generate one: openssl rand -hex 32)'],
    [
      { GATEWAY_ADMIN_TOKEN: 'change-me-to-a-long-random-string' },
      'auth.adminToken: is a placeholder from the examples, known to anyone; set a random value (openssl rand -hex 32)',
    ],
  ])('validates the environment override %o like the file', async (env, line) => {
    const config = file('ok.yaml', 'server:\n  port: 8787\n');
    expect(await failsWith(['--config', config], env)).toEqual([line]);
  });

  it('says so when the config file is missing or cannot be parsed', async () => {
    const missing = join(dir, 'nope.yaml');
    expect(await failsWith(['--config', missing])).toEqual([`${missing}: cannot be read (no such file)`]);
    const broken = file('broken.json', '{"server": {"port": 8787,}}');
    const lines = await failsWith(['--config', broken]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^${broken.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:1:\\d+: cannot be parsed: `));
  });

  it('serves from the shipped gateway.yaml, on the port GATEWAY_PORT gives', async () => {
    const { proc, url } = await startsOn([]);
    const res = await fetch(`${url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    expect((await fetch(`${url}/ready`)).status).toBe(200);
    await stop(proc);
  });

  it('reads a JSON config chosen by GATEWAY_CONFIG, with ${VAR:-default} and a numeric value from the environment', async () => {
    const port = await freePort();
    const config = file('gw.json', JSON.stringify({ server: { host: '127.0.0.1', port: '${GW_TEST_PORT:-1}' }, logging: { level: 'warn' } }));
    const proc = spawnGateway([], { env: { GATEWAY_CONFIG: config, GW_TEST_PORT: String(port), GATEWAY_DATA_DIR: join(dir, 'data') } });
    running.push(proc);
    await waitForHealth(`http://127.0.0.1:${port}`, proc);
    await stop(proc);
  });

  it('says so when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const config = file('taken.yaml', 'server:\n  host: 127.0.0.1\n');
      expect(await failsWith(['--config', config], { GATEWAY_PORT: String(port) })).toEqual([
        `server.port: cannot listen (listen EADDRINUSE: address already in use 127.0.0.1:${port})`,
      ]);
    } finally {
      blocker.close();
    }
  });

  it('stops at an unknown stage in a pipeline', async () => {
    file('pipes-unknown/chat.yaml', 'name: chat\nroutes: ["POST /v1/chat/completions"]\nstages:\n  - normalize-error\n  - teleport\n  - forward\n');
    const config = file('unknown-stage.yaml', `pipelines:\n  dir: ${join(dir, 'pipes-unknown')}\n`);
    const lines = await failsWith(['--config', config]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^.*pipes-unknown\/chat\.yaml: stages\[1\]: unknown stage "teleport" \(known: .*authenticate.*forward.*\)$/);
  });

  it('stops at a stage config that fails the stage schema', async () => {
    file('pipes-bad/chat.yaml', 'name: chat\nroutes: ["POST /v1/chat/completions"]\nstages:\n  - normalize-error\n  - authenticate: { providerKey: sometimes }\n  - forward\n');
    const config = file('bad-stage.yaml', `pipelines:\n  dir: ${join(dir, 'pipes-bad')}\n`);
    const lines = await failsWith(['--config', config]);
    expect(lines).toEqual([`${join(dir, 'pipes-bad', 'chat.yaml')}: stages[1].authenticate.providerKey: must be boolean`]);
  });

  it('loads the example plugin from examples/configs/with-plugin.yaml and runs its stage', async () => {
    const { proc, url } = await startsOn(['--config', 'examples/configs/with-plugin.yaml']);
    // No provider key: the answer is an error, and the plugin's header is on it.
    const res = await fetch(`${url}/v1/models`, { headers: { 'x-gateway-provider': 'openai' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('x-served-by')).toBe('gateway-example');
    expect(((await res.json()) as any).error.code).toBe('invalid_api_key');
    await stop(proc);
  });

  it('stops when a plugin stage is configured against its schema', async () => {
    file('pipes-plugin/chat.yaml', 'name: chat\nroutes: ["POST /v1/chat/completions"]\nstages:\n  - normalize-error\n  - header-stamp: { header: x-served-by }\n  - forward\n');
    const config = file('plugin-bad.yaml', `plugins:\n  - ${join(ROOT, 'examples/plugins/header-stamp.mjs')}\npipelines:\n  dir: ${join(dir, 'pipes-plugin')}\n`);
    expect(await failsWith(['--config', config])).toEqual([`${join(dir, 'pipes-plugin', 'chat.yaml')}: stages[1].header-stamp.value: is required`]);
  });

  it('stops when a plugin module cannot be loaded', async () => {
    const config = file('plugin-missing.yaml', 'plugins:\n  - ./examples/plugins/does-not-exist.mjs\n');
    const lines = await failsWith(['--config', config]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^plugins\[0\] \(.*examples\/plugins\/does-not-exist\.mjs\): cannot be loaded: /);
  });
});
