import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { answers, chatBody, CHAT, post, UPSTREAM_CHAT } from '../../helpers/routing-harness.js';
import { freePort, spawnGateway, waitForHealth, type GatewayProcess } from '../../helpers/built-gateway.js';

const ADMIN = 'lazy-modules-admin-token-0123456789abcdefghij';
const TOKENIZER = '/node_modules/gpt-tokenizer/';
const MCP_SDK = '/node_modules/@modelcontextprotocol/sdk/';

/**
 * What a gateway loads is memory it keeps (issue 14: at most 100 MB of RSS at rest). The BPE
 * tokenizer (about 11 MB of heap) serves only metered streams, which need a gateway key, and
 * the MCP SDK (with zod) only tool servers: a gateway that serves neither loads neither, as seen
 * from the real process (every module it loads is recorded by a loader hook).
 */
describe('modules loaded only when a config or a request needs them (real process)', { timeout: 120_000 }, () => {
  let dir: string;
  let upstream: FakeUpstream;
  const running: GatewayProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-lazy-modules-'));
    upstream = await new FakeUpstream().on(UPSTREAM_CHAT, answers('hi')).start();
  }, 240_000);
  afterAll(async () => {
    for (const p of running) p.kill();
    await upstream?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A gateway process whose loaded modules go to loaded-<name>.txt (a loader hook of its own, registered with --import). */
  async function start(name: string, config: string) {
    const hooks = join(dir, `hooks-${name}.mjs`);
    writeFileSync(
      hooks,
      `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  appendFileSync(${JSON.stringify(join(dir, `loaded-${name}.txt`))}, url + '\\n');\n  return next(url, context);\n}\n`,
    );
    const register = join(dir, `register-${name}.mjs`);
    writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
    const port = await freePort();
    const path = join(dir, `${name}.yaml`);
    writeFileSync(path, `server:\n  host: 127.0.0.1\n  port: ${port}\nproviders:\n  openai:\n    baseUrl: ${upstream.url}/v1\n${config}`);
    const proc = spawnGateway(['--config', path], {
      env: { GATEWAY_DATA_DIR: join(dir, `data-${name}`), NODE_OPTIONS: `--import ${pathToFileURL(register).href}` },
    });
    running.push(proc);
    const url = `http://127.0.0.1:${port}`;
    await waitForHealth(url, proc, 60_000);
    return url;
  }

  const loaded = (name: string) => readFileSync(join(dir, `loaded-${name}.txt`), 'utf8');
  const chat = (url: string, headers: Record<string, string>, model: string, stream = false) => post(url, CHAT, chatBody({ model, stream }), headers);

  it('a gateway without gateway keys or tool servers loads neither the tokenizer nor the MCP SDK, serving a request', async () => {
    const url = await start('plain', '');
    const res = await chat(url, { authorization: 'Bearer sk-caller-own-key', 'x-gateway-provider': 'openai' }, 'gpt-4o-mini');
    expect(res.status).toBe(200);
    // the hook saw the gateway's own modules (it works), and not these
    expect(loaded('plain')).toContain('/features/governance/metering/');
    expect(loaded('plain')).not.toContain(TOKENIZER);
    expect(loaded('plain')).not.toContain(MCP_SDK);
  });

  it('a keyed request whose answer is whole JSON does not load the tokenizer; the first keyed stream does', async () => {
    const url = await start(
      'keyed',
      [
        `auth:\n  adminToken: ${ADMIN}`,
        'credentials:\n  openai-main: { provider: openai, api_key: sk-held-0123456789abcdefghijklmnop }',
        "models:\n  fast: { credential: openai-main, model: gpt-4o-mini, price: { input: '0.00000015', output: '0.0000006' } }",
        '',
      ].join('\n'),
    );
    expect(loaded('keyed')).not.toContain(TOKENIZER);
    const minted = await fetch(`${url}/v1/auth/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ user: 'lazy@example.com', models: ['fast'] }),
    });
    expect(minted.status).toBe(201);
    const { token } = (await minted.json()) as { token: string };
    const res = await chat(url, { authorization: `Bearer ${token}` }, 'fast');
    expect(res.status).toBe(200);
    expect(res.json.choices[0].message.content).toBe('hi');
    expect(loaded('keyed')).not.toContain(TOKENIZER);
    const streamed = await chat(url, { authorization: `Bearer ${token}` }, 'fast', true);
    expect(streamed.status).toBe(200);
    expect(streamed.done).toBe(true);
    for (let i = 0; i < 100 && !loaded('keyed').includes(TOKENIZER); i++) await new Promise((r) => setTimeout(r, 50));
    expect(loaded('keyed')).toContain(TOKENIZER);
    expect(loaded('keyed')).not.toContain(MCP_SDK);
  });
});
