import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT, buildGateway, spawnGateway } from '../../helpers/built-gateway.js';

/** The command line of `node dist/main.js` as an operator uses it: each run is a real process. */
describe('command line', { timeout: 120_000 }, () => {
  let dir: string;

  beforeAll(() => {
    buildGateway();
    dir = mkdtempSync(join(tmpdir(), 'gw-cli-'));
  }, 240_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function file(name: string, text: string): string {
    const path = join(dir, name);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
    return path;
  }

  async function run(args: string[], env: Record<string, string> = {}) {
    const proc = spawnGateway(args, { env: { GATEWAY_DATA_DIR: join(dir, 'data'), ...env } });
    const { code } = await proc.exited;
    return { code, stdout: proc.stdout(), stderr: proc.stderr() };
  }

  it('--help and --version print and exit 0 without serving', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    for (const flag of ['--config <path>', '--check', '--print-config', '--help', '--version', 'SIGHUP']) expect(help.stdout).toContain(flag);
    const version = await run(['--version']);
    expect(version).toEqual({ code: 0, stdout: `${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}\n`, stderr: '' });
  });

  it('an unknown flag, a stray argument or a --config without a path exits 2 naming it', async () => {
    const unknown = await run(['--port', '9000']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe("error: Unknown option '--port'\nRun with --help to see the options.\n");
    expect(unknown.stdout).toBe('');
    const stray = await run(['serve']);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toMatch(/^error: Unexpected argument 'serve'/);
    const noPath = await run(['--config']);
    expect(noPath.code).toBe(2);
    expect(noPath.stderr).toMatch(/^error: Option '-c, --config <value>' argument missing/);
  });

  it('--check: ok and exit 0 for a good config and its pipelines, with nothing started or written', async () => {
    const data = join(dir, 'check-data');
    const config = file(
      'good.yaml',
      `server:\n  port: 1\nstorage:\n  type: sqlite\n  path: ${join(data, 'never.db')}\nmcpServers:\n  t:\n    command: ${process.execPath}\n    args: ["-e", "process.exit(3)"]\n`,
    );
    const result = await run(['--check', '--config', config]);
    expect(result).toMatchObject({ code: 0, stdout: 'ok\n', stderr: '' });
    expect(existsSync(join(data, 'never.db'))).toBe(false);
  });

  it('--check: one line per problem and exit 1, for the config and for a pipeline', async () => {
    const bad = file('bad.yaml', 'auth:\n  enabled: true\n  type: password\nlogging:\n  level: loud\n');
    const config = await run(['--check', '--config', bad]);
    expect(config.code).toBe(1);
    expect(config.stderr.split('\n').filter(Boolean).sort()).toEqual([
      'auth.type: must be one of bearer, api-key, oauth, mtls',
      'logging.level: must be one of fatal, error, warn, info, debug, trace, silent',
    ]);
    file('pipes/chat.yaml', 'name: chat\nroutes: ["POST /v1/chat/completions"]\nstages:\n  - normalize-error\n  - teleport\n');
    const pipes = await run(['--check', '--config', file('pipes.yaml', `pipelines:\n  dir: ${join(dir, 'pipes')}\n`)]);
    expect(pipes.code).toBe(1);
    expect(pipes.stderr).toMatch(/pipes\/chat\.yaml: stages\[1\]: unknown stage "teleport"/);
  });

  it('--check: every problem in one run, each with its key path: schema, semantic rules, missing files, unset variables and pipelines', async () => {
    file('all-pipes/chat.yaml', 'name: chat\nroutes: ["POST /v1/chat/completions"]\nstages:\n  - normalize-error\n  - teleport\n');
    const path = file(
      'everything-wrong.yaml',
      [
        'server:',
        '  port: not-a-port',
        '  ssl:',
        '    enabled: true',
        `    cert: ${join(dir, 'no-cert.pem')}`,
        `    key: ${join(dir, 'no-key.pem')}`,
        'logging:',
        '  level: loud',
        'auth:',
        '  enabled: true',
        '  type: mtls',
        `  ca: ${join(dir, 'no-ca.pem')}`,
        '  adminToken: too-short',
        'routing:',
        '  defaultConfig: nowhere',
        'storage:',
        '  type: postgres',
        'providers:',
        '  openai:',
        '    apiKey: ${UNSET_KEY_FOR_CHECK}',
        'pipelines:',
        `  dir: ${join(dir, 'all-pipes')}`,
        '',
      ].join('\n'),
    );
    const result = await run(['--check', '--config', path]);
    expect(result.code).toBe(1);
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines).toEqual(
      expect.arrayContaining([
        'providers.openai.apiKey: environment variable UNSET_KEY_FOR_CHECK is not set and has no default',
        expect.stringMatching(/^server\.port: /),
        'logging.level: must be one of fatal, error, warn, info, debug, trace, silent',
        'storage.url: is required when storage.type is postgres',
        expect.stringMatching(/^auth\.adminToken: must be at least 32 characters/),
        'routing.defaultConfig: names no config under configs (nowhere)',
        `server.ssl.cert: cannot read ${join(dir, 'no-cert.pem')} (no such file)`,
        `server.ssl.key: cannot read ${join(dir, 'no-key.pem')} (no such file)`,
        `auth.ca: cannot read ${join(dir, 'no-ca.pem')} (no such file)`,
        expect.stringMatching(/all-pipes\/chat\.yaml: stages\[1\]: unknown stage "teleport"/),
      ]),
    );
    expect(lines).toHaveLength(new Set(lines).size);
  });

  it('--check: a YAML error names the line and column, and says how to quote ${VAR} inside a flow map', async () => {
    const path = file('flow.yaml', 'server:\n  port: 8787\nproviders:\n  groq: { apiKey: ${GROQ_KEY_1} }\n');
    const result = await run(['--check', '--config', path]);
    expect(result.code).toBe(1);
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0].startsWith(`${path}:4:20: cannot be parsed: `)).toBe(true);
    expect(lines[0]).toContain('quote a value that holds ${...}');
  });

  it('--print-config: the effective YAML, environment expanded, overrides and defaults applied, secrets [REDACTED]', async () => {
    const path = file(
      'secrets.yaml',
      [
        'server:',
        '  host: 127.0.0.1',
        'storage:',
        '  type: postgres',
        '  url: postgres://gw:${GW_DB_PASSWORD}@db.internal:5432/gw',
        'providers:',
        '  openai:',
        '    apiKey: ${GW_OPENAI_KEY}',
        '    headers: { x-org: org-secret-header-value }',
        'mcpServers:',
        '  files:',
        '    command: node',
        '    env: { FILES_TOKEN: short1 }',
      ].join('\n'),
    );
    const secrets = { GW_DB_PASSWORD: 'pg-pass-7f3a9', GW_OPENAI_KEY: 'sk-print-config-000111', GATEWAY_ADMIN_TOKEN: 'admin-token-for-print-config-0123456789' };
    const result = await run(['--print-config', '--config', path], { ...secrets, GATEWAY_PORT: '9123' });
    expect(result.code, result.stderr).toBe(0);
    for (const value of [...Object.values(secrets), 'org-secret-header-value', 'short1']) expect(result.stdout).not.toContain(value);
    const printed = parse(result.stdout);
    expect(printed.server).toMatchObject({ host: '127.0.0.1', port: 9123, shutdownGracePeriod: '30s' });
    expect(printed.storage.url).toBe('postgres://gw:[REDACTED]@db.internal:5432/gw');
    expect(printed.providers.openai).toEqual({ apiKey: '[REDACTED]', headers: { 'x-org': '[REDACTED]' } });
    expect(printed.mcpServers.files.env).toEqual({ FILES_TOKEN: '[REDACTED]' });
    expect(printed.auth.adminToken).toBe('[REDACTED]');
    expect(printed.logging).toEqual({ level: 'info', requests: true });
  });
});
