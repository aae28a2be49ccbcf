// POST /v1/admin/config/validate and POST /v1/admin/config/reload: the console's Config page
// calls them; any admin client may.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, spawnGateway, waitForHealth, type GatewayProcess } from '../../helpers/built-gateway.js';
import { eventually } from '../../helpers/mcp.js';
import { logRecords } from '../../helpers/npm-start.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';

const ADMIN = 'admin-token-config-ops-0001-0123456789abcdef';
const VIEWER_KEY = 'cfg-config-ops-viewer-0002-0123456789abcdef';
const NEW_KEY = 'cfg-config-ops-added-0003-0123456789abcdef';

async function call(url: string, method: string, path: string, opts: { token?: string; body?: string; type?: string; cookie?: string; csrf?: string } = {}) {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.csrf) headers['x-csrf-token'] = opts.csrf;
  if (opts.type) headers['content-type'] = opts.type;
  const res = await request(`${url}${path}`, { method: method as 'POST', headers, body: opts.body });
  const text = await res.body.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, json, text };
}

describe('POST /v1/admin/config/validate', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({
      logging: { level: 'warn' },
      ui: { enabled: true },
      auth: { adminToken: ADMIN, apiKeys: [{ key: VIEWER_KEY, user: 'vera@example.com', roles: ['viewer'] }] },
    });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('answers valid for a good config, in YAML or JSON', async () => {
    const yaml = await call(gw.url, 'POST', '/v1/admin/config/validate', { token: ADMIN, type: 'application/yaml', body: 'server:\n  port: 9000\nlogging:\n  level: debug\n' });
    expect(yaml.status).toBe(200);
    expect(yaml.json).toEqual({ object: 'admin.config.validation', valid: true, problems: [] });
    const json = await call(gw.url, 'POST', '/v1/admin/config/validate', { token: ADMIN, type: 'application/json', body: JSON.stringify({ ui: { enabled: true } }) });
    expect(json.json.valid).toBe(true);
  });

  it('answers every problem, each naming its key: schema errors, cross checks, and what the pipeline compile finds', async () => {
    const res = await call(gw.url, 'POST', '/v1/admin/config/validate', {
      token: ADMIN,
      type: 'text/plain',
      body: [
        'server:',
        '  port: not-a-port',
        'storage:',
        '  type: postgres',
        'nonsense: true',
        'models:',
        '  chat:',
        '    targets:',
        '      - { provider: openai, model: gpt-4o-mini, credential: missing-cred }',
      ].join('\n'),
    });
    expect(res.status).toBe(200);
    expect(res.json.valid).toBe(false);
    const problems: string[] = res.json.problems;
    expect(problems.some((p) => p.startsWith('server.port'))).toBe(true);
    expect(problems.some((p) => p.startsWith('storage.url'))).toBe(true);
    expect(problems.some((p) => p.includes('nonsense'))).toBe(true);
    // Compiled as at start-up: the catalogue names a credential no config or store holds.
    const compiled = await call(gw.url, 'POST', '/v1/admin/config/validate', {
      token: ADMIN,
      type: 'application/yaml',
      body: 'models:\n  chat:\n    targets:\n      - { provider: openai, model: gpt-4o-mini, credential: missing-cred }\n',
    });
    expect(compiled.json.valid).toBe(false);
    expect(compiled.json.problems.join('\n')).toMatch(/missing-cred/);
    const unparsable = await call(gw.url, 'POST', '/v1/admin/config/validate', { token: ADMIN, type: 'application/yaml', body: 'server: [unclosed' });
    expect(unparsable.status).toBe(200);
    expect(unparsable.json.valid).toBe(false);
  });

  it('loads no plugin and reads no pipelines folder the running gateway does not already use', async () => {
    const res = await call(gw.url, 'POST', '/v1/admin/config/validate', {
      token: ADMIN,
      type: 'application/yaml',
      body: 'plugins: ["/tmp/not-a-plugin-of-this-gateway.js"]\npipelines:\n  dir: /etc\n',
    });
    expect(res.json.valid).toBe(false);
    expect(res.json.problems).toEqual(expect.arrayContaining([expect.stringMatching(/^plugins\[0\]: not loaded/), expect.stringMatching(/^pipelines\.dir: differs/)]));
  });

  it('reads no file the running config does not already read (nothing tells whether another path exists)', async () => {
    const res = await call(gw.url, 'POST', '/v1/admin/config/validate', {
      token: ADMIN,
      type: 'application/yaml',
      body: 'server:\n  ssl:\n    enabled: true\n    cert: /etc/hostname\n    key: /no/such/key.pem\n',
    });
    expect(res.json.valid).toBe(false);
    const text = res.json.problems.join('\n');
    expect(text).toMatch(/server\.ssl\.cert: names a file the running config does not/);
    expect(text).toMatch(/server\.ssl\.key: names a file the running config does not/);
    expect(text).not.toMatch(/no such file|cannot read/);
  });

  it('refuses a bad request in the contract shape, a viewer (403), and a session write without its CSRF token', async () => {
    const empty = await call(gw.url, 'POST', '/v1/admin/config/validate', { token: ADMIN, type: 'application/yaml', body: '' });
    expect(empty.status).toBe(400);
    expect(empty.json.error.param).toBe('body');
    const form = await call(gw.url, 'POST', '/v1/admin/config/validate', { token: ADMIN, type: 'application/x-www-form-urlencoded', body: 'a=1' });
    expect(form.status).toBe(400);
    expect(form.json.error.param).toBe('content-type');
    const big = await call(gw.url, 'POST', '/v1/admin/config/validate', { token: ADMIN, type: 'text/plain', body: `# ${'x'.repeat((1 << 20) + 10)}` });
    expect(big.status).toBe(400);
    // An admin-only route: a valid key is not its credential (403, a valid credential not allowed), nor is a viewer session (403, below); no credential is 401.
    expect((await call(gw.url, 'POST', '/v1/admin/config/validate', { token: VIEWER_KEY, type: 'text/plain', body: 'ui: {}' })).status).toBe(403);
    expect((await call(gw.url, 'POST', '/v1/admin/config/validate', { type: 'text/plain', body: 'ui: {}' })).status).toBe(401);
    const login = await request(`${gw.url}/v1/admin/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: ADMIN }) });
    const body: any = await login.body.json();
    const raw = login.headers['set-cookie'];
    const cookie = (Array.isArray(raw) ? raw : [raw!]).map((c) => c.split(';')[0]).join('; ');
    expect((await call(gw.url, 'POST', '/v1/admin/config/validate', { cookie, type: 'text/plain', body: 'ui: {}' })).status).toBe(403);
    const ok = await call(gw.url, 'POST', '/v1/admin/config/validate', { cookie, csrf: body.csrf_token, type: 'text/plain', body: 'ui: {}' });
    expect(ok.json.valid).toBe(true);
    const viewerLogin = await request(`${gw.url}/v1/admin/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: VIEWER_KEY }),
    });
    const viewerBody: any = await viewerLogin.body.json();
    const viewerRaw = viewerLogin.headers['set-cookie'];
    const viewerCookie = (Array.isArray(viewerRaw) ? viewerRaw : [viewerRaw!]).map((c) => c.split(';')[0]).join('; ');
    expect((await call(gw.url, 'POST', '/v1/admin/config/validate', { cookie: viewerCookie, csrf: viewerBody.csrf_token, type: 'text/plain', body: 'ui: {}' })).status).toBe(403);
    expect((await call(gw.url, 'POST', '/v1/admin/config/reload', { cookie: viewerCookie, csrf: viewerBody.csrf_token })).status).toBe(403);
  });

  it('reload: 409 for a gateway that was not started from a config file', async () => {
    const res = await call(gw.url, 'POST', '/v1/admin/config/reload', { token: ADMIN });
    expect(res.status).toBe(409);
    expect(res.json.error.message).toMatch(/not started from a config file/);
    expect((await call(gw.url, 'POST', '/v1/admin/config/reload', { token: VIEWER_KEY })).status).toBe(403);
  });
});

describe('POST /v1/admin/config/reload on a gateway started from its file', { timeout: 120_000 }, () => {
  let dir: string;
  let proc: GatewayProcess | undefined;
  let url: string;
  let file: string;
  const config = (keys: { key: string; user: string; roles?: string[] }[]) =>
    JSON.stringify({
      server: { host: '127.0.0.1' },
      logging: { level: 'info' },
      auth: { adminToken: ADMIN, apiKeys: [{ key: VIEWER_KEY, user: 'vera@example.com', roles: ['viewer'] }, ...keys] },
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-config-reload-'));
    file = join(dir, 'gateway.json');
    writeFileSync(file, config([]));
    const port = await freePort();
    proc = spawnGateway(['--config', file], { env: { GATEWAY_PORT: String(port), GATEWAY_DATA_DIR: join(dir, 'data') } });
    url = `http://127.0.0.1:${port}`;
    await waitForHealth(url, proc, 60_000);
  });
  afterAll(() => {
    proc?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reloads the changed file (a key added works at once); a broken file is 422 with its problems and the running config stays', async () => {
    expect((await call(url, 'GET', '/v1/admin/models', { token: NEW_KEY })).status).toBe(401);
    writeFileSync(file, config([{ key: NEW_KEY, user: 'nina@example.com', roles: ['viewer'] }]));
    const reloaded = await call(url, 'POST', '/v1/admin/config/reload', { token: ADMIN });
    expect(reloaded.status).toBe(200);
    expect(reloaded.json).toEqual({ object: 'admin.config.reload', status: 'reloaded', file });
    expect((await call(url, 'GET', '/v1/admin/models', { token: NEW_KEY })).status).toBe(200);
    // The log line comes through the child's stdout pipe, not with the answer: waited for, not raced (CI saw it late once).
    await eventually(() => proc!.stdout().includes('config reloaded'), 10_000, 'the "config reloaded" log line');

    // (server.port would not do: GATEWAY_PORT overrides it.)
    writeFileSync(file, JSON.stringify({ server: { host: '127.0.0.1' }, logging: { level: 'loud' }, auth: { adminToken: ADMIN } }));
    const failed = await call(url, 'POST', '/v1/admin/config/reload', { token: ADMIN });
    expect(failed.status).toBe(422);
    expect(failed.json.error.message).toMatch(/logging\.level/);
    expect(failed.text).not.toContain(ADMIN);
    // Still the last good config.
    expect((await call(url, 'GET', '/v1/admin/models', { token: NEW_KEY })).status).toBe(200);
    expect((await call(url, 'POST', '/v1/admin/config/reload', { token: VIEWER_KEY })).status).toBe(403);
  });

  it('keeps each reload that took place in the audit log: through the admin API with its caller, by SIGHUP with the signal; a refused one is not kept', async () => {
    const reloads = async () => (await call(url, 'GET', '/v1/admin/audit?resource=config', { token: ADMIN })).json.data as any[];
    // The test above reloaded once through the API, then had a file with problems refused.
    const [viaApi, ...older] = await reloads();
    expect(older).toEqual([]);
    expect(viaApi).toMatchObject({
      object: 'audit.entry',
      action: 'config.reload',
      resource: 'config',
      resource_id: file,
      actor: { role: 'admin' },
      request_id: expect.any(String),
      before: null,
      after: { status: 'reloaded', file, trigger: 'api' },
    });

    writeFileSync(file, config([{ key: NEW_KEY, user: 'nina@example.com', roles: ['viewer'] }]));
    proc!.child.kill('SIGHUP');
    const bySignal = await eventually(
      async () => {
        const now = await reloads();
        return now.length === 2 ? now[0] : undefined;
      },
      30_000,
      'the SIGHUP reload in the audit log',
    );
    expect(bySignal).toMatchObject({
      action: 'config.reload',
      resource: 'config',
      resource_id: file,
      actor: { kind: 'signal', id: 'SIGHUP', user: null, role: null },
      request_id: null,
      after: { status: 'reloaded', file, trigger: 'SIGHUP' },
    });
    expect(JSON.stringify(await reloads())).not.toContain(ADMIN);
  });
});

describe('POST /v1/admin/config/reload in a cluster (server.workers: 2)', { timeout: 180_000 }, () => {
  let dir: string;
  let proc: GatewayProcess | undefined;
  afterAll(() => {
    proc?.kill();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the worker that takes the request checks the file and asks the primary: every worker reloads', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-config-reload-cluster-'));
    const file = join(dir, 'gateway.json');
    const write = (level: string) => writeFileSync(file, JSON.stringify({ server: { host: '127.0.0.1', workers: 2 }, logging: { level }, auth: { adminToken: ADMIN } }));
    write('info');
    const port = await freePort();
    proc = spawnGateway(['--config', file], { env: { GATEWAY_PORT: String(port), GATEWAY_DATA_DIR: join(dir, 'data') } });
    const url = `http://127.0.0.1:${port}`;
    await waitForHealth(url, proc, 60_000);
    const until = async (check: () => boolean, what: string) => {
      const end = Date.now() + 60_000;
      while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
      expect(check(), what).toBe(true);
    };
    await until(() => logRecords(proc!).some((r) => r.msg === 'gateway listening'), 'no start-up line');
    write('debug');
    const res = await call(url, 'POST', '/v1/admin/config/reload', { token: ADMIN });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ object: 'admin.config.reload', status: 'requested', file });
    await until(
      () =>
        new Set(
          logRecords(proc!)
            .filter((r) => r.msg === 'config reloaded')
            .map((r) => r.pid),
        ).size === 2,
      'both workers did not reload',
    );
    // A broken file: refused by the worker before the primary is asked (no worker reloads).
    writeFileSync(file, JSON.stringify({ server: { host: '127.0.0.1', workers: 2 }, auth: { adminToken: ADMIN }, nonsense: true }));
    const failed = await call(url, 'POST', '/v1/admin/config/reload', { token: ADMIN });
    expect(failed.status).toBe(422);
    expect(failed.json.error.message).toMatch(/nonsense/);
    expect(failed.text).not.toContain(ADMIN);
    expect(logRecords(proc).filter((r) => r.msg === 'config reloaded')).toHaveLength(2);

    // The audit log keeps the request once (by the worker that took it), and a SIGHUP to the primary once (not once per worker).
    const reloads = async () => (await call(url, 'GET', '/v1/admin/audit?resource=config', { token: ADMIN })).json.data as any[];
    expect(await reloads()).toMatchObject([{ action: 'config.reload', actor: { role: 'admin' }, after: { status: 'requested', file, trigger: 'api' } }]);
    write('info');
    proc.child.kill('SIGHUP');
    await until(() => logRecords(proc!).filter((r) => r.msg === 'config reloaded').length === 4, 'both workers did not reload on SIGHUP');
    // Each worker keeps its entry before it writes that line.
    const entries = await reloads();
    expect(entries.map((e) => e.after.trigger)).toEqual(['SIGHUP', 'api']);
    expect(entries[0]).toMatchObject({ actor: { kind: 'signal', id: 'SIGHUP' }, after: { status: 'reloaded', file } });
  });
});
