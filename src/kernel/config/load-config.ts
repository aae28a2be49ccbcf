import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT_DIR } from '../paths.js';
import { parse as parseYaml, parseDocument } from 'yaml';
import type { GatewayConfig } from '../../generated/gateway.js';
import { expandEnv, type ExpandProblem } from './env-expand.js';
import { applyEnvOverrides } from './env-overrides.js';
import type { ErrorObject } from 'ajv';
import { describeErrors, validatorFor } from './schema-validator.js';
import { coerceFromEnvironment } from './env-coerce.js';
import { applyDefaults } from './defaults.js';
import { registeredFeatures, type StartupFile } from './features.js';

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

/** A config file read whole, with every problem found in it (empty: the config is valid). */
export interface CheckedConfig {
  /** The config, defaults added; with problems it is only as good as they allow (for --check to go on with). */
  config: GatewayConfig;
  problems: string[];
}

/** Expand ${VAR}, apply env overrides, validate against schema/gateway.schema.json, add defaults. */
export function buildConfig(raw: unknown, source: string, options: LoadOptions = {}): GatewayConfig {
  const { config, problems } = checkConfigTree(raw, source, options);
  if (problems.length) throw new ConfigError(problems, source);
  return config;
}

/**
 * Every problem of a config tree in one pass, each naming its key: unset environment variables,
 * every schema error, then the rules a schema cannot say (run on whatever the schema let through:
 * a rule that trips on a value of the wrong shape is left out, the schema named that value).
 */
export function checkConfigTree(raw: unknown, source: string, options: LoadOptions = {}): CheckedConfig {
  const env = options.env ?? process.env;
  const tree = raw ?? {};
  if (typeof tree !== 'object' || Array.isArray(tree)) throw new ConfigError(['(root): must be an object'], source);
  const expandProblems: ExpandProblem[] = [];
  const fromEnv = new Set<string>();
  const expanded = expandEnv(tree, env, expandProblems, '', fromEnv) as Record<string, unknown>;
  const problems = expandProblems.map((p) => `${p.path}: ${p.message}`);
  applyEnvOverrides(expanded, env);
  const validate = validatorFor('gateway.schema.json');
  let valid = validate(expanded);
  // "${PORT:-8787}" is text: where the schema asks for a number or a boolean, convert and check again.
  if (!valid && coerceFromEnvironment(expanded, validate.errors, fromEnv)) valid = validate(expanded);
  if (!valid) problems.push(...describeErrors(validate.errors));
  const config = expanded as GatewayConfig;
  // What goes on (to --check's compile of the pipelines) is the config without the values the schema refused.
  const usable = (valid ? expanded : withoutRefused(expanded, validate.errors ?? [])) as GatewayConfig;
  for (const rule of crossChecks()) {
    try {
      problems.push(...rule(config));
    } catch {
      // A value of the wrong shape: the schema's problem already names it.
    }
  }
  let withDefaults = usable;
  try {
    withDefaults = applyDefaults(usable, env, options.cwd ?? process.cwd());
  } catch (err) {
    if (!problems.length) throw err;
  }
  // A key whose variable is unset is named once, for that (not again for the empty value it got).
  const unset = expandProblems.map((p) => `${p.path}: `);
  const named = problems.filter((line, i) => i < expandProblems.length || !unset.some((key) => line.startsWith(key)));
  return { config: withDefaults, problems: [...new Set(named)] };
}

/**
 * A copy of `tree` without each value a schema error points at (an unknown key: that key; a
 * missing required key: the object that lacks it), again until the schema accepts what is left
 * (an entry of a list left without a required key goes too): what follows (--check's compile of
 * the pipelines) never meets a value the schema refused.
 */
function withoutRefused(tree: Record<string, unknown>, errors: ErrorObject[]): Record<string, unknown> {
  const copy = structuredClone(tree);
  const validate = validatorFor('gateway.schema.json');
  for (let round = 0; round < 8 && errors.length; round++) {
    if (!removeRefused(copy, errors) || validate(copy)) break;
    errors = [...(validate.errors ?? [])];
  }
  return copy;
}

/** Removes what each error points at from `tree` (entries of lists spliced out); whether anything went. */
function removeRefused(tree: Record<string, unknown>, errors: ErrorObject[]): boolean {
  const fromLists = new Map<unknown[], Set<number>>();
  let removed = false;
  for (const error of errors) {
    const keys = error.instancePath
      .split('/')
      .slice(1)
      .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (error.keyword === 'additionalProperties') keys.push(String((error.params as { additionalProperty?: string }).additionalProperty));
    const last = keys.pop();
    if (last === undefined) continue;
    let parent: unknown = tree;
    for (const key of keys) parent = parent && typeof parent === 'object' ? (parent as Record<string, unknown>)[key] : undefined;
    if (!parent || typeof parent !== 'object' || !(last in parent)) continue;
    if (Array.isArray(parent)) {
      const at = fromLists.get(parent) ?? new Set<number>();
      at.add(Number(last));
      fromLists.set(parent, at);
    } else delete (parent as Record<string, unknown>)[last];
    removed = true;
  }
  for (const [list, at] of fromLists) for (const i of [...at].sort((a, b) => b - a)) list.splice(i, 1);
  return removed;
}

/** loadConfigFile for --check: every problem of the file at once instead of a ConfigError. */
export function checkConfigFile(path: string, options: LoadOptions = {}): CheckedConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder' : (code ?? (err as Error).message);
    throw new ConfigError([`${path}: cannot be read (${why})`], path);
  }
  return checkConfigTree(parseConfigText(text, path), path, options);
}

const sslOn = (config: GatewayConfig) => config.server?.ssl?.enabled === true;

/**
 * Files the gateway may read at start-up (certificates, keys, CAs), by the key that names them:
 * the server's certificate and key, then those each registered feature declares.
 */
export function startupFiles(): StartupFile[] {
  return [{ key: 'server.ssl.cert', read: sslOn }, { key: 'server.ssl.key', read: sslOn }, ...registeredFeatures().flatMap((f) => f.files ?? [])];
}

/** The value at a dotted key of the config (`auth.ca`), if any. */
export function configValueAt(config: GatewayConfig, key: string): unknown {
  let node: unknown = config;
  for (const part of key.split('.')) node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
  return node;
}

/** The files the config reads at start-up that cannot be read, one line each. */
function fileChecks(config: GatewayConfig): string[] {
  const out: string[] = [];
  for (const { key, read } of startupFiles()) {
    if (!read(config)) continue;
    const file = configValueAt(config, key);
    if (typeof file !== 'string' || !file) continue; // missing: a rule of its own says so
    const why = unreadable(file);
    if (why) out.push(`${key}: cannot read ${file} (${why})`);
  }
  return out;
}

/** Why a file cannot be read (undefined: it can). */
function unreadable(file: string): string | undefined {
  try {
    if (!statSync(file).isFile()) return 'not a file';
    accessSync(file, constants.R_OK);
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (code ?? (err as Error).message);
  }
}

/** The kernel's rules a JSON Schema cannot say well (those of its own keys). */
function kernelChecks(config: GatewayConfig): string[] {
  const out: string[] = [];
  if (config.server?.ssl?.enabled) {
    if (!config.server.ssl.cert) out.push('server.ssl.cert: is required when server.ssl.enabled is true');
    if (!config.server.ssl.key) out.push('server.ssl.key: is required when server.ssl.enabled is true');
  }
  if (config.storage?.type === 'postgres' && !config.storage.url) out.push('storage.url: is required when storage.type is postgres');
  return out;
}

/**
 * The rules run after the schema, each on its own (one tripping on a malformed value does not
 * hide the others): the kernel's, each registered feature's, then the files read at start-up.
 */
function crossChecks(): Array<(config: GatewayConfig) => string[]> {
  return [kernelChecks, ...registeredFeatures().flatMap((f) => f.checks ?? []), fileChecks];
}
