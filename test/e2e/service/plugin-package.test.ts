import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT, buildGateway, freePort, spawnGateway, waitForHealth, type GatewayProcess } from '../../helpers/built-gateway.js';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { fixtureJson } from '../../helpers/fixtures.js';
import { connectClient, rawPost, stdioToolServer, textOf } from '../../helpers/mcp.js';

const run = promisify(execFile);
const npmEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };

/**
 * Packs the package the way `npm publish` would (`npm pack` of what package.json's `files`
 * ships, with the test build as dist/), once: returns the tarball.
 */
async function packTarball(into: string): Promise<string> {
  const stage = join(into, 'stage');
  mkdirSync(stage);
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
  for (const entry of pkg.files) {
    const name = entry.replace(/\/$/, '');
    if (name === 'dist') continue;
    if (existsSync(join(ROOT, name))) cpSync(join(ROOT, name), join(stage, name), { recursive: true, dereference: true });
  }
  cpSync(join(ROOT, 'package.json'), join(stage, 'package.json'));
  // The test build (tsc with the build's config, declarations included, and the precompiled schemas).
  cpSync(dirname(buildGateway()), join(stage, 'dist'), { recursive: true, filter: (src) => !src.endsWith('.stamp') });
  // --ignore-scripts: `prepare` builds from the sources, which the staged copy has not (dist/ is the build).
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', into], { cwd: stage, env: npmEnv, maxBuffer: 64 * 1024 * 1024 });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  rmSync(stage, { recursive: true, force: true });
  return join(into, packed!.filename);
}

/**
 * A user's project with the tarball installed as node_modules/pipeline-gateway (unpacked as npm
 * does; its dependencies are the repository's own, linked beside it, as npm would hoist them)
 * and examples/plugins/ copied in.
 */
async function projectWith(tarball: string, dir: string): Promise<void> {
  const installed = join(dir, 'node_modules', 'pipeline-gateway');
  mkdirSync(installed, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (name === '.bin' || name === 'pipeline-gateway' || name.startsWith('.')) continue;
    symlinkSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name));
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'my-gateway', private: true, type: 'module', dependencies: { 'pipeline-gateway': `file:${tarball}` } }));
  cpSync(join(ROOT, 'examples', 'plugins'), join(dir, 'examples', 'plugins'), { recursive: true });
}

/** The example plugins (one of each kind, written with 'pipeline-gateway/plugin'), run from the packed package. */
describe('plugins written with the public API, from the packed package', { timeout: 120_000 }, () => {
  let work: string;
  let project: string;
  let tarball: string;
  let upstream: FakeUpstream;
  let proc: GatewayProcess | undefined;
  let url: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'gw-plugin-package-'));
    tarball = await packTarball(work);
    project = join(work, 'project');
    await projectWith(tarball, project);
    upstream = await new FakeUpstream().on('POST /v1/chat/completions', { json: fixtureJson('openai', 'chat') }).start();
    // The example config as shipped (examples/plugins/gateway.yaml), with the fake as Acme's address
    // and a tool server behind /mcp.
    const config = join(project, 'gateway.yaml');
    const example = readFileSync(join(project, 'examples', 'plugins', 'gateway.yaml'), 'utf8');
    const tools = stdioToolServer();
    writeFileSync(config, `${example}\nmcpServers:\n  local:\n    command: ${JSON.stringify(tools.command)}\n    args: ${JSON.stringify(tools.args)}\n`);
    const port = await freePort();
    proc = spawnGateway(['--config', config], {
      cwd: project,
      env: { GATEWAY_PORT: String(port), GATEWAY_HOST: '127.0.0.1', GATEWAY_DATA_DIR: join(work, 'data'), ACME_LLM_BASE_URL: `${upstream.url}/v1` },
      main: join(project, 'node_modules', 'pipeline-gateway', 'dist', 'main.js'),
    });
    url = `http://127.0.0.1:${port}`;
    await waitForHealth(url, proc, 60_000);
  }, 240_000);

  afterAll(async () => {
    proc?.kill();
    await upstream?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const chat = (content: string, headers: Record<string, string>) =>
    fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': 'sk-acme-test-0001', ...headers },
      body: JSON.stringify({ model: 'acme-1', messages: [{ role: 'user', content }] }),
    });

  it('the tarball ships the plugin module and its types, exported as pipeline-gateway/plugin; the bin is kept', () => {
    const installed = join(project, 'node_modules', 'pipeline-gateway');
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    expect(pkg.exports['./plugin']).toEqual({ types: './dist/plugin-api.d.ts', default: './dist/plugin-api.js' });
    expect(pkg.exports['.']).toBe('./dist/main.js');
    expect(pkg.bin).toEqual({ 'pipeline-gateway': 'dist/main.js' });
    expect(existsSync(join(installed, 'dist', 'plugin-api.js'))).toBe(true);
    const types = readFileSync(join(installed, 'dist', 'plugin-api.d.ts'), 'utf8');
    for (const name of ['defineStage', 'defineProvider', 'defineCheck', 'defineAuthMode']) expect(types).toContain(`export declare function ${name}`);
  });

  it('the provider plugin answers a chat request through the fake, and the stage plugin names it on the answer', async () => {
    const res = await chat('hello', { 'x-gateway-provider': 'acme-llm' });
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.choices[0].message.content).toEqual(expect.any(String));
    expect(res.headers.get('x-routed-to')).toBe('acme-llm');
    const sent = upstream.received('POST /v1/chat/completions').at(-1)!;
    expect(sent.headers.authorization).toBe('Bearer sk-acme-test-0001');
    expect(sent.json()).toMatchObject({ model: 'acme-1', messages: [{ role: 'user', content: 'hello' }] });
  });

  it('the guardrail check plugin refuses a prompt with a denied word (422, nothing sent upstream) and lets the others through', async () => {
    const before = upstream.received('POST /v1/chat/completions').length;
    const denied = await chat('please summarise this Confidential memo', { 'x-gateway-config': 'guarded' });
    expect(denied.status).toBe(422);
    expect(((await denied.json()) as any).error).toMatchObject({
      type: 'guardrail_error',
      code: 'guardrail_failed',
      message: expect.stringContaining('deny-words check failed (a denied word)'),
    });
    expect(upstream.received('POST /v1/chat/completions')).toHaveLength(before);
    const passed = await chat('please summarise this memo', { 'x-gateway-config': 'guarded' });
    expect(passed.status).toBe(200);
    expect(passed.headers.get('x-routed-to')).toBe('acme-llm');
  });

  it('the auth mode plugin refuses /mcp callers without the shared secret (401) and lets in those with it', async () => {
    const missing = await rawPost(`${url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(missing.status, JSON.stringify(missing.json)).toBe(401);
    expect(missing.json).toMatchObject({ error: { type: 'authentication_error', message: 'Send the shared secret in the x-shared-secret header.' } });
    const wrong = await rawPost(`${url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'x-shared-secret': 'not-the-team-secret-0001' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain('not-the-team-secret-0001');
    const client = await connectClient(`${url}/mcp`, { 'x-shared-secret': 'a-long-team-secret-0001' });
    try {
      expect(textOf(await client.callTool({ name: 'local__echo', arguments: { text: 'from a plugin' } }))).toContain('from a plugin');
    } finally {
      await client.close();
    }
  });

  it("a TypeScript plugin type-checks against the package's types, which catch a wrong slot field and a malformed definition", async () => {
    const tsc = join(project, 'node_modules', 'typescript', 'bin', 'tsc');
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true, types: ['node'] },
        include: ['typed/*.ts'],
      }),
    );
    mkdirSync(join(project, 'typed'), { recursive: true });
    const stage = (field: string) => `import { defineStage, TARGET, USAGE } from 'pipeline-gateway/plugin';
export default defineStage<{ header: string }>({
  name: 'typed-stage',
  schema: { type: 'object', properties: { header: { type: 'string' } } },
  requires: [TARGET],
  reads: [USAGE],
  create: (config) => async (ctx, next) => {
    const provider: string = ctx.get(TARGET)!.${field};
    ctx.responseHeaders[config.header] = provider;
    await next();
    const total: number | undefined = ctx.get(USAGE)?.total_tokens;
    void total;
  },
});
`;
    writeFileSync(join(project, 'typed', 'stage.ts'), stage('provider'));
    await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project });
    writeFileSync(join(project, 'typed', 'stage.ts'), stage('provder'));
    writeFileSync(join(project, 'typed', 'check.ts'), "import { defineCheck } from 'pipeline-gateway/plugin';\nexport default defineCheck({ name: 'no-create', schema: {} });\n");
    const failed = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project }).then(
      () => '',
      (err: { stdout: string }) => err.stdout,
    );
    expect(failed).toMatch(/typed\/stage\.ts\(\d+,\d+\): error TS2551: Property 'provder' does not exist/);
    expect(failed).toMatch(
      /typed\/check\.ts\(\d+,\d+\): error TS2345: Argument of type '\{ name: string; schema: \{\}; \}' is not assignable to parameter of type 'GuardrailCheckDefinition<unknown>'/,
    );
  });

  it('--check of a pipeline that puts the stage plugin before what it requires fails, naming the file', async () => {
    const pipes = join(project, 'bad-pipes');
    mkdirSync(pipes, { recursive: true });
    writeFileSync(join(pipes, 'chat.yaml'), 'name: chat\nextends: chat\ninsert:\n  - before: route\n    stages: [routed-to]\n');
    const config = join(project, 'bad.yaml');
    writeFileSync(config, `plugins:\n  - ./examples/plugins/routed-to.mjs\npipelines:\n  dir: ${pipes}\n`);
    const check = spawnGateway(['--check', '--config', config], {
      cwd: project,
      env: { GATEWAY_DATA_DIR: join(work, 'data-check') },
      main: join(project, 'node_modules', 'pipeline-gateway', 'dist', 'main.js'),
    });
    const { code } = await check.exited;
    expect(code).not.toBe(0);
    expect(check.stderr() + check.stdout()).toContain(`bad-pipes/chat.yaml: stage routed-to needs a target, which fallback provides; fallback is not before it`);
  });
});
