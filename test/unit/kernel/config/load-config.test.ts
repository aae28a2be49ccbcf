import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildConfig, ConfigError, configPathFrom, loadConfigFile } from '../../../../src/config.js';
import { parseDuration } from '../../../../src/kernel/config/defaults.js';
import { ROOT } from '../../../helpers/built-gateway.js';

/** The problems a config produces (one line each), or [] when it loads. */
function problemsOf(raw: unknown, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    buildConfig(raw, 'test', { env, cwd: '/srv/gw' });
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}

describe('config loading', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gw-config-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  describe('files', () => {
    it('reads YAML', () => {
      const path = join(dir, 'a.yaml');
      writeFileSync(path, 'server:\n  port: 9001\nlogging:\n  level: warn\n');
      const config = loadConfigFile(path, { env: {}, cwd: dir });
      expect(config.server?.port).toBe(9001);
      expect(config.logging?.level).toBe('warn');
    });

    it('reads JSON', () => {
      const path = join(dir, 'a.json');
      writeFileSync(path, JSON.stringify({ server: { port: 9002 }, auth: { enabled: false, type: 'api-key' } }));
      const config = loadConfigFile(path, { env: {}, cwd: dir });
      expect(config.server?.port).toBe(9002);
      expect(config.auth?.type).toBe('api-key');
    });

    it('treats an empty file as an empty config (all defaults)', () => {
      const path = join(dir, 'empty.yaml');
      writeFileSync(path, '# nothing here\n');
      const config = loadConfigFile(path, { env: {}, cwd: dir });
      expect(config.server).toMatchObject({ host: '0.0.0.0', port: 8787, shutdownGracePeriod: '30s' });
      expect(config.storage).toMatchObject({ type: 'sqlite', path: join(dir, 'data', 'gateway.db'), filesDir: join(dir, 'data', 'files') });
      expect(config.auth).toMatchObject({ enabled: false, type: 'bearer' });
    });

    it('names the file it cannot read or parse', () => {
      const missing = join(dir, 'missing.yaml');
      expect(() => loadConfigFile(missing, { env: {} })).toThrow(ConfigError);
      try {
        loadConfigFile(missing, { env: {} });
      } catch (err) {
        expect((err as ConfigError).problems).toEqual([`${missing}: cannot be read (no such file)`]);
      }
      const bad = join(dir, 'bad.yaml');
      writeFileSync(bad, 'server: [unclosed\n');
      try {
        loadConfigFile(bad, { env: {} });
        expect.unreachable();
      } catch (err) {
        expect((err as ConfigError).problems).toHaveLength(1);
        expect((err as ConfigError).problems[0]).toMatch(new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2:1: cannot be parsed: `));
      }
    });

    it('names the line and column where a file stops parsing, with a hint for ${...} in a flow collection', () => {
      const file = join(dir, 'routing.yaml');
      writeFileSync(file, 'configs:\n  fast:\n    targets: [{ provider: groq, api_key: ${GROQ_KEY_1} }]\n');
      const problems = (() => {
        try {
          loadConfigFile(file, { env: { GROQ_KEY_1: 'gsk-1' } });
        } catch (err) {
          return (err as ConfigError).problems;
        }
        return [];
      })();
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/:3:\d+: cannot be parsed: .+ \(inside \{ \} or \[ \], quote a value that holds \$\{\.\.\.\}: api_key: "\$\{KEY\}"\)$/);
      expect(problems[0]!.startsWith(`${file}:3:`)).toBe(true);
      writeFileSync(file, 'configs:\n  fast:\n    targets: [{ provider: groq, api_key: "${GROQ_KEY_1}" }]\n');
      expect(loadConfigFile(file, { env: { GROQ_KEY_1: 'gsk-1' } }).configs?.fast).toMatchObject({ targets: [{ provider: 'groq', api_key: 'gsk-1' }] });
      const json = join(dir, 'bad.json');
      writeFileSync(json, '{\n  "server": {\n    "port": 8787,\n  }\n}\n');
      try {
        loadConfigFile(json, { env: {} });
        expect.unreachable();
      } catch (err) {
        expect((err as ConfigError).problems[0]).toMatch(new RegExp(`^${json.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:4:3: cannot be parsed: `));
      }
    });

    it('rejects a file whose top level is not a mapping', () => {
      expect(problemsOf(['a', 'b'])).toEqual(['(root): must be an object']);
      expect(problemsOf('port: 1')).toEqual(['(root): must be an object']);
    });
  });

  describe('environment references', () => {
    it('replaces ${NAME} and ${NAME:-default} in any string, several per string', () => {
      const config = buildConfig(
        {
          server: { host: '${GW_HOST:-127.0.0.1}', publicUrl: 'https://${GW_DOMAIN}:${GW_TLS_PORT:-443}/gw' },
          providers: { openai: { baseUrl: '${OPENAI_URL}' } },
          plugins: ['${PLUGIN_DIR:-/opt/plugins}/a.mjs'],
        },
        'test',
        { env: { GW_DOMAIN: 'gw.example.com', OPENAI_URL: 'http://127.0.0.1:9/v1' }, cwd: '/srv/gw' },
      );
      expect(config.server?.host).toBe('127.0.0.1');
      expect(config.server?.publicUrl).toBe('https://gw.example.com:443/gw');
      expect(config.providers?.openai?.baseUrl).toBe('http://127.0.0.1:9/v1');
      expect(config.plugins).toEqual(['/opt/plugins/a.mjs']);
    });

    it('prefers the environment over the default, and an empty variable counts as unset', () => {
      const raw = { server: { host: '${GW_HOST:-0.0.0.0}' } };
      expect(buildConfig(raw, 't', { env: { GW_HOST: '10.0.0.1' } }).server?.host).toBe('10.0.0.1');
      expect(buildConfig(raw, 't', { env: { GW_HOST: '' } }).server?.host).toBe('0.0.0.0');
    });

    it('names every key whose variable is unset and has no default', () => {
      expect(problemsOf({ storage: { type: 'postgres', url: '${DB_URL}' }, plugins: ['${A}', 'ok', '${B:-}x'] })).toEqual([
        'storage.url: environment variable DB_URL is not set and has no default',
        'plugins[0]: environment variable A is not set and has no default',
      ]);
    });

    it('turns a reference into the number or boolean the schema asks for', () => {
      const config = buildConfig({ server: { port: '${PORT:-8080}', bodyLimit: '${BODY_LIMIT}' }, logging: { requests: '${LOG_REQUESTS}' } }, 't', {
        env: { BODY_LIMIT: '2048', LOG_REQUESTS: 'false' },
      });
      expect(config.server?.port).toBe(8080);
      expect(config.server?.bodyLimit).toBe(2048);
      expect(config.logging?.requests).toBe(false);
      expect(problemsOf({ server: { port: '${PORT}' } }, { PORT: 'http' })).toEqual(['server.port: must be integer']);
    });

    it('converts only what came from the environment: values written in the file keep their type', () => {
      expect(problemsOf({ server: { port: '8787' } })).toEqual(['server.port: must be integer']);
      expect(problemsOf({ storage: { path: null } })).toEqual(['storage.path: must be string']);
      expect(problemsOf({ logging: { requests: 'yes' } })).toEqual(['logging.requests: must be boolean']);
      // A string key stays a string even when its variable looks like a number.
      const config = buildConfig({ auth: { apiKeys: [{ key: '${TEAM_KEY}' }] } }, 't', { env: { TEAM_KEY: '12345678' } });
      expect(config.auth?.apiKeys?.[0]?.key).toBe('12345678');
    });
  });

  describe('environment overrides (applied before validation)', () => {
    it('GATEWAY_AUTH_TYPE and GATEWAY_AUTH_ENABLED set auth.type and auth.enabled', () => {
      const config = buildConfig({ auth: { enabled: false, type: 'bearer' } }, 't', { env: { GATEWAY_AUTH_TYPE: 'api-key', GATEWAY_AUTH_ENABLED: 'true' } });
      expect(config.auth).toMatchObject({ enabled: true, type: 'api-key' });
      expect(buildConfig({ auth: { enabled: true } }, 't', { env: { GATEWAY_AUTH_ENABLED: '0' } }).auth?.enabled).toBe(false);
      expect(problemsOf({}, { GATEWAY_AUTH_TYPE: 'kerberos' })).toEqual(['auth.type: must be one of bearer, api-key, oauth, mtls']);
      expect(problemsOf({}, { GATEWAY_AUTH_ENABLED: 'maybe' })).toEqual(['auth.enabled: must be boolean']);
    });

    it('GATEWAY_PORT sets server.port', () => {
      expect(buildConfig({ server: { port: 1 } }, 't', { env: { GATEWAY_PORT: '9999' } }).server?.port).toBe(9999);
      expect(problemsOf({}, { GATEWAY_PORT: '70000' })).toEqual(['server.port: must be <= 65535']);
    });

    it('GATEWAY_ADMIN_TOKEN sets auth.adminToken', () => {
      const token = 'admin-token-0123456789-0123456789abcdef';
      expect(buildConfig({}, 't', { env: { GATEWAY_ADMIN_TOKEN: token } }).auth?.adminToken).toBe(token);
    });

    it('GATEWAY_DATA_DIR moves the SQLite file and the files folder', () => {
      const config = buildConfig({ storage: { path: './elsewhere/db.sqlite' } }, 't', { env: { GATEWAY_DATA_DIR: 'state/a' }, cwd: '/srv/gw' });
      expect(config.storage?.path).toBe('/srv/gw/state/a/gateway.db');
      expect(config.storage?.filesDir).toBe('/srv/gw/state/a/files');
      const without = buildConfig({ storage: { path: './elsewhere/db.sqlite' } }, 't', { env: {}, cwd: '/srv/gw' });
      expect(without.storage?.path).toBe('/srv/gw/elsewhere/db.sqlite');
      expect(without.storage?.filesDir).toBe('/srv/gw/elsewhere/files');
    });

    it('the files folder follows storage.path when only the path is set; an explicit filesDir stays', () => {
      const at = (storage: Record<string, unknown>) => buildConfig({ storage }, 't', { env: {}, cwd: '/srv/gw' }).storage?.filesDir;
      expect(at({ path: '/var/lib/gw/state.db' })).toBe('/var/lib/gw/files');
      expect(at({ path: 'db/gw.db' })).toBe('/srv/gw/db/files');
      expect(at({ path: '/var/lib/gw/state.db', filesDir: './blobs' })).toBe('/srv/gw/blobs');
      expect(at({})).toBe('/srv/gw/data/files');
      expect(at({ path: ':memory:' })).toBe('/srv/gw/data/files');
    });
  });

  describe('validation problems name the key path', () => {
    it('unknown keys, wrong types, enums and bounds, nested in lists', () => {
      expect(
        problemsOf({
          sever: { port: 1 },
          server: { port: -1, shutdownGracePeriod: 'soon' },
          rateLimits: [{ per: 'planet', limit: 0, window: '1m' }],
        }).sort(),
      ).toEqual(
        [
          'sever: is not a known key',
          'server.port: must be >= 0',
          'server.shutdownGracePeriod: must match the pattern ^[0-9]+(ms|s|m)$',
          'rateLimits[0].per: must be one of key, token, user, team, ip',
          'rateLimits[0].limit: must be >= 1',
        ].sort(),
      );
    });

    it('folds schema branches into the problem that tells the most', () => {
      // if/then/else: the failing branch's own error, not "must match else schema".
      expect(problemsOf({ mcpServers: { files: { args: ['x'] } } })).toEqual(['mcpServers.files.url: is required']);
      // oneOf: the accepted types when only the type is wrong.
      expect(problemsOf({ auth: { audience: 5 } })).toEqual(['auth.audience: must be string or array']);
      // oneOf: the deepest problem when the outer type was right.
      expect(problemsOf({ auth: { audience: ['a', 7] } })).toEqual(['auth.audience[1]: must be string']);
    });

    it('auth.oauth: the authorization-server role needs no issuer, unless users log in through it', () => {
      expect(problemsOf({ auth: { enabled: true, type: 'oauth' } })).toEqual(['auth.issuer: is required when auth.type is oauth']);
      expect(problemsOf({ auth: { enabled: true, type: 'oauth', oauth: { role: 'authorization-server' } } })).toEqual([]);
      expect(problemsOf({ auth: { enabled: true, type: 'oauth', oauth: { role: 'authorization-server', login: ['oidc'] } } })).toEqual([
        'auth.issuer: is required when auth.oauth.login includes oidc',
        'auth.clientId: is required when auth.oauth.login includes oidc',
        'auth.clientSecret: is required when auth.oauth.login includes oidc',
      ]);
      expect(problemsOf({ auth: { oauth: { role: 'authorization-server', accessTokenLifetime: '10 minutes', login: ['password'] } } })).toEqual([
        'auth.oauth.login[0]: must be one of gateway-key, oidc',
        'auth.oauth.accessTokenLifetime: must match the pattern ^[0-9]+[dhms]$',
      ]);
    });

    it('rules a schema cannot say', () => {
      expect(problemsOf({ storage: { type: 'postgres' } })).toEqual(['storage.url: is required when storage.type is postgres']);
      expect(problemsOf({ routing: { defaultConfig: 'main' } })).toEqual(['routing.defaultConfig: names no config under configs (main)']);
      expect(problemsOf({ server: { ssl: { enabled: true } } })).toEqual([
        'server.ssl.cert: is required when server.ssl.enabled is true',
        'server.ssl.key: is required when server.ssl.enabled is true',
      ]);
    });
  });

  describe('choosing the file', () => {
    it('--config, then GATEWAY_CONFIG, then ./gateway.yaml, then the shipped gateway.yaml', () => {
      expect(configPathFrom(['--config', 'x.yaml'], { GATEWAY_CONFIG: 'y.yaml' }, '/srv')).toBe('/srv/x.yaml');
      expect(configPathFrom(['--config=/etc/gw.json'], {}, '/srv')).toBe('/etc/gw.json');
      expect(configPathFrom([], { GATEWAY_CONFIG: 'y.yaml' }, '/srv')).toBe('/srv/y.yaml');
      expect(configPathFrom(['--config', 'missing.yaml'], {}, '/srv')).toBe('/srv/missing.yaml');
      const here = mkdtempSync(join(tmpdir(), 'gw-choose-'));
      try {
        expect(configPathFrom([], {}, here)).toBe(join(ROOT, 'gateway.yaml'));
        writeFileSync(join(here, 'gateway.yaml'), 'server: { port: 1 }\n');
        expect(configPathFrom([], {}, here)).toBe(resolve(here, 'gateway.yaml'));
      } finally {
        rmSync(here, { recursive: true, force: true });
      }
    });
  });

  it('parses durations', () => {
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('2m')).toBe(120_000);
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(() => parseDuration('soon')).toThrow('not a duration: soon');
  });
});
