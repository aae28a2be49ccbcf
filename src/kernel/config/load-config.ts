import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT_DIR } from '../paths.js';
import { parse as parseYaml, parseDocument } from 'yaml';
import type { GatewayConfig } from '../../generated/gateway.js';
import { expandEnv, type ExpandProblem } from './env-expand.js';
import { applyEnvOverrides } from './env-overrides.js';
import { describeErrors, validatorFor } from './schema-validator.js';
import { coerceFromEnvironment } from './env-coerce.js';
import { applyDefaults } from './defaults.js';
import { isPlaceholderSecret, MIN_ADMIN_TOKEN_LENGTH } from './placeholder-secrets.js';

/** The longest lifetime auth.tokenExpiration may give a token (as token creation allows). */
const MAX_TOKEN_EXPIRATION_S = 3650 * 86_400;

export class ConfigError extends Error {
  constructor(
    readonly problems: string[],
    readonly source: string,
  ) {
    super(`invalid gateway config ${source}:\n${problems.join('\n')}`);
    this.name = 'ConfigError';
  }
}

export interface LoadOptions {
  env?: NodeJS.ProcessEnv;
  /** Where relative paths resolve (default process.cwd()). */
  cwd?: string;
}

/** Picks the config file: --config <path>, then GATEWAY_CONFIG, then ./gateway.yaml. */
export function configPathFrom(argv: string[], env: NodeJS.ProcessEnv, cwd = process.cwd()): string {
  const i = argv.indexOf('--config');
  const flag = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--config='))?.slice('--config='.length);
  if (flag ?? env.GATEWAY_CONFIG) return resolve(cwd, (flag ?? env.GATEWAY_CONFIG)!);
  // No file named: ./gateway.yaml, else the package's shipped one (`npx <package>` in any folder).
  const local = resolve(cwd, 'gateway.yaml');
  return existsSync(local) ? local : join(ROOT_DIR, 'gateway.yaml');
}

export function parseConfigText(text: string, source: string): unknown {
  try {
    return source.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new ConfigError([parseProblem(text, source, err)], source);
  }
}

/**
 * One line naming where a config file stops parsing: `<file>:<line>:<column>: cannot be parsed: <why>`,
 * with a hint for the usual YAML slip (a `${...}` value inside a `{ }` or `[ ]` flow collection).
 */
function parseProblem(text: string, source: string, err: unknown): string {
  const message = ((err as Error).message ?? String(err)).split('\n')[0]!;
  let where = (err as { linePos?: Array<{ line: number; col: number }> }).linePos?.[0];
  // JSON.parse gives an offset at best: the line and column are counted from it, else YAML (a superset of JSON) finds the spot.
  const offset = /at position (\d+)/.exec(message);
  if (!where && offset) {
    const before = text.slice(0, Number(offset[1])).split(/\r?\n/);
    where = { line: before.length, col: before.at(-1)!.length + 1 };
  }
  if (!where) where = parseDocument(text).errors[0]?.linePos?.[0];
  const why = message
    .replace(/ at line \d+, column \d+:?$/, '')
    .replace(/ (in JSON )?at position \d+.*$/, '')
    .replace(/:$/, '');
  const line = where ? (text.split(/\r?\n/)[where.line - 1] ?? '') : '';
  const hint = /[{[][^}\]]*\$\{/.test(line) ? ' (inside { } or [ ], quote a value that holds ${...}: api_key: "${KEY}")' : '';
  return `${source}${where ? `:${where.line}:${where.col}` : ''}: cannot be parsed: ${why}${hint}`;
}

export function loadConfigFile(path: string, options: LoadOptions = {}): GatewayConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder' : (code ?? (err as Error).message);
    throw new ConfigError([`${path}: cannot be read (${why})`], path);
  }
  return buildConfig(parseConfigText(text, path), path, options);
}

/** Expand ${VAR}, apply env overrides, validate against schema/gateway.schema.json, add defaults. */
export function buildConfig(raw: unknown, source: string, options: LoadOptions = {}): GatewayConfig {
  const env = options.env ?? process.env;
  const tree = raw ?? {};
  if (typeof tree !== 'object' || Array.isArray(tree)) throw new ConfigError(['(root): must be an object'], source);
  const problems: ExpandProblem[] = [];
  const fromEnv = new Set<string>();
  const expanded = expandEnv(tree, env, problems, '', fromEnv) as Record<string, unknown>;
  if (problems.length)
    throw new ConfigError(
      problems.map((p) => `${p.path}: ${p.message}`),
      source,
    );
  applyEnvOverrides(expanded, env);
  const validate = validatorFor('gateway.schema.json');
  let valid = validate(expanded);
  // "${PORT:-8787}" is text: where the schema asks for a number or a boolean, convert and check again.
  if (!valid && coerceFromEnvironment(expanded, validate.errors, fromEnv)) valid = validate(expanded);
  if (!valid) throw new ConfigError(describeErrors(validate.errors), source);
  const config = expanded as GatewayConfig;
  const extra = crossChecks(config);
  if (extra.length) throw new ConfigError(extra, source);
  return applyDefaults(config, env, options.cwd ?? process.cwd());
}

/** Rules a JSON Schema cannot say well. */
function crossChecks(config: GatewayConfig): string[] {
  const out: string[] = [];
  if (config.server?.ssl?.enabled) {
    if (!config.server.ssl.cert) out.push('server.ssl.cert: is required when server.ssl.enabled is true');
    if (!config.server.ssl.key) out.push('server.ssl.key: is required when server.ssl.enabled is true');
  }
  if (config.storage?.type === 'postgres' && !config.storage.url) out.push('storage.url: is required when storage.type is postgres');
  if (config.auth?.enabled && config.auth.type === 'oauth' && !config.auth.issuer) out.push('auth.issuer: is required when auth.type is oauth');
  if (config.auth?.enabled && config.auth.type === 'mtls' && !config.auth.ca) out.push('auth.ca: is required when auth.type is mtls');
  if (config.auth?.type === 'mtls' && config.auth.enabled && !config.server?.ssl?.enabled) out.push('server.ssl.enabled: must be true when auth.type is mtls');
  if (config.cache?.store === 'redis' && !config.redis?.url) out.push('redis.url: is required when cache.store is redis');
  const adminToken = config.auth?.adminToken;
  if (adminToken !== undefined) {
    if (adminToken.length < MIN_ADMIN_TOKEN_LENGTH) out.push(`auth.adminToken: must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters (generate one: openssl rand -hex 32)`);
    else if (isPlaceholderSecret(adminToken)) out.push('auth.adminToken: is a placeholder from the examples, known to anyone; set a random value (openssl rand -hex 32)');
  }
  const signing = config.identityForwarding?.signingSecret;
  if (signing !== undefined && isPlaceholderSecret(signing)) {
    out.push('identityForwarding.signingSecret: is a placeholder from the examples, known to anyone; set a random value (openssl rand -hex 32)');
  }
  const expiration = config.auth?.tokenExpiration;
  if (expiration !== undefined) {
    const m = /^(\d+)([dhms])$/.exec(expiration);
    const seconds = m ? Number(m[1]) * ({ d: 86_400, h: 3_600, m: 60, s: 1 } as Record<string, number>)[m[2]!]! : 0;
    if (!(seconds >= 1 && seconds <= MAX_TOKEN_EXPIRATION_S)) out.push('auth.tokenExpiration: must be between 1s and 3650d');
  }
  if (config.routing?.defaultConfig && !config.configs?.[config.routing.defaultConfig]) {
    out.push(`routing.defaultConfig: names no config under configs (${config.routing.defaultConfig})`);
  }
  return out;
}
