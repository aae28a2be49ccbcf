import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { expandEnv } from './env-expand.js';
import { applyEnvOverrides } from './env-overrides.js';
import { describeErrors, validatorFor } from './schema-validator.js';
import { coerceFromEnvironment } from './env-coerce.js';
import { applyDefaults } from './defaults.js';
import { isPlaceholderSecret, MIN_ADMIN_TOKEN_LENGTH } from './placeholder-secrets.js';
/** The longest lifetime auth.tokenExpiration may give a token (as token creation allows). */
const MAX_TOKEN_EXPIRATION_S = 3650 * 86_400;
export class ConfigError extends Error {
    problems;
    source;
    constructor(problems, source) {
        super(`invalid gateway config ${source}:\n${problems.join('\n')}`);
        this.problems = problems;
        this.source = source;
        this.name = 'ConfigError';
    }
}
/** Picks the config file: --config <path>, then GATEWAY_CONFIG, then ./gateway.yaml. */
export function configPathFrom(argv, env, cwd = process.cwd()) {
    const i = argv.indexOf('--config');
    const flag = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--config='))?.slice('--config='.length);
    return resolve(cwd, flag ?? env.GATEWAY_CONFIG ?? 'gateway.yaml');
}
export function parseConfigText(text, source) {
    try {
        return source.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
    }
    catch (err) {
        throw new ConfigError([`${source}: cannot be parsed: ${err.message.split('\n')[0]}`], source);
    }
}
export function loadConfigFile(path, options = {}) {
    let text;
    try {
        text = readFileSync(path, 'utf8');
    }
    catch (err) {
        const code = err.code;
        const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder' : (code ?? err.message);
        throw new ConfigError([`${path}: cannot be read (${why})`], path);
    }
    return buildConfig(parseConfigText(text, path), path, options);
}
/** Expand ${VAR}, apply env overrides, validate against schema/gateway.schema.json, add defaults. */
export function buildConfig(raw, source, options = {}) {
    const env = options.env ?? process.env;
    const tree = raw ?? {};
    if (typeof tree !== 'object' || Array.isArray(tree))
        throw new ConfigError(['(root): must be an object'], source);
    const problems = [];
    const fromEnv = new Set();
    const expanded = expandEnv(tree, env, problems, '', fromEnv);
    if (problems.length)
        throw new ConfigError(problems.map((p) => `${p.path}: ${p.message}`), source);
    applyEnvOverrides(expanded, env);
    const validate = validatorFor('gateway.schema.json');
    let valid = validate(expanded);
    // "${PORT:-8787}" is text: where the schema asks for a number or a boolean, convert and check again.
    if (!valid && coerceFromEnvironment(expanded, validate.errors, fromEnv))
        valid = validate(expanded);
    if (!valid)
        throw new ConfigError(describeErrors(validate.errors), source);
    const config = expanded;
    const extra = crossChecks(config);
    if (extra.length)
        throw new ConfigError(extra, source);
    return applyDefaults(config, env, options.cwd ?? process.cwd());
}
/** Rules a JSON Schema cannot say well. */
function crossChecks(config) {
    const out = [];
    if (config.server?.ssl?.enabled) {
        if (!config.server.ssl.cert)
            out.push('server.ssl.cert: is required when server.ssl.enabled is true');
        if (!config.server.ssl.key)
            out.push('server.ssl.key: is required when server.ssl.enabled is true');
    }
    if (config.storage?.type === 'postgres' && !config.storage.url)
        out.push('storage.url: is required when storage.type is postgres');
    if (config.auth?.enabled && config.auth.type === 'oauth' && !config.auth.issuer)
        out.push('auth.issuer: is required when auth.type is oauth');
    if (config.auth?.enabled && config.auth.type === 'mtls' && !config.auth.ca)
        out.push('auth.ca: is required when auth.type is mtls');
    if (config.auth?.type === 'mtls' && config.auth.enabled && !config.server?.ssl?.enabled)
        out.push('server.ssl.enabled: must be true when auth.type is mtls');
    if (config.cache?.store === 'redis' && !config.redis?.url)
        out.push('redis.url: is required when cache.store is redis');
    const adminToken = config.auth?.adminToken;
    if (adminToken !== undefined) {
        if (adminToken.length < MIN_ADMIN_TOKEN_LENGTH)
            out.push(`auth.adminToken: must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters (generate one: openssl rand -hex 32)`);
        else if (isPlaceholderSecret(adminToken))
            out.push('auth.adminToken: is a placeholder from the examples, known to anyone; set a random value (openssl rand -hex 32)');
    }
    const signing = config.identityForwarding?.signingSecret;
    if (signing !== undefined && isPlaceholderSecret(signing)) {
        out.push('identityForwarding.signingSecret: is a placeholder from the examples, known to anyone; set a random value (openssl rand -hex 32)');
    }
    const expiration = config.auth?.tokenExpiration;
    if (expiration !== undefined) {
        const m = /^(\d+)([dhms])$/.exec(expiration);
        const seconds = m ? Number(m[1]) * { d: 86_400, h: 3_600, m: 60, s: 1 }[m[2]] : 0;
        if (!(seconds >= 1 && seconds <= MAX_TOKEN_EXPIRATION_S))
            out.push('auth.tokenExpiration: must be between 1s and 3650d');
    }
    if (config.routing?.defaultConfig && !config.configs?.[config.routing.defaultConfig]) {
        out.push(`routing.defaultConfig: names no config under configs (${config.routing.defaultConfig})`);
    }
    return out;
}
//# sourceMappingURL=load-config.js.map