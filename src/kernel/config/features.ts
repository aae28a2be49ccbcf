import type { GatewayConfig } from '../../generated/gateway.js';

/**
 * What one feature declares about its part of the gateway config: the top-level keys it owns,
 * the environment variables that set them, the defaults the rest of the gateway relies on, the
 * rules a JSON Schema cannot say, the files it reads at start-up, which of its fields hold
 * credentials, what `--check` must not connect to, the request headers a browser page may send
 * for it, what the start-up line says of it, and what the primary of a cluster holds and warns
 * about for it. The config loader, `--check`, the config validate API, the secret scan (and so
 * the redactor, `--print-config` and the admin config view), the cors stage, the start-up line
 * and the cluster's primary read the registered declarations: the kernel, the generic stages and
 * the command line name no feature, and no key or field of one.
 */
export interface FeatureDefinition {
  /** The feature (auth, mcp, models...), for messages. */
  name: string;
  /** The top-level keys of the gateway config it owns (no two features own one). */
  configKeys: readonly string[];
  /** Environment variables that set one of its keys (GATEWAY_AUTH_TYPE sets auth.type), applied before validation. */
  envOverrides?: readonly EnvOverride[];
  /**
   * Its keys with their defaults filled in (`auth: { enabled: false, ...config.auth }`), given the
   * config with the kernel's defaults and those of the features declared before it. Only its own
   * keys are taken from the result.
   */
  defaults?(config: GatewayConfig): Partial<GatewayConfig>;
  /**
   * Rules the schema cannot say, one line per problem (`<key>: <why>`). They run on whatever the
   * schema let through: a rule that throws on a value of the wrong shape is left out (the
   * schema's problem names that value), and does not hide the others.
   */
  checks?: ReadonlyArray<(config: GatewayConfig) => string[]>;
  /** Files it reads at start-up (certificates, CAs), by the key that names them: each is checked readable where the config reads it. */
  files?: readonly StartupFile[];
  /**
   * Fields whose values are credentials though they are not named like one (auth.apiKeys[].key):
   * their values join the config's secrets (masked by the redactor, by --print-config and the
   * admin config view). A field of that name under `ssl` is a file path, never a secret.
   */
  secretFields?: readonly string[];
  /** Objects whose every value is a credential (a tool server's `env`). */
  secretContainers?: readonly string[];
  /** The config as `--check` builds it: what this feature would connect to or change replaced by something inert. */
  inert?(config: GatewayConfig): GatewayConfig;
  /** Request headers a browser page may send for this feature (a credential's header): the cors stage allows them in a preflight. */
  corsHeaders?(config: GatewayConfig): string[];
  /** What the start-up line (and the "config reloaded" line) says of its part of the config, as fields of that line. */
  startupFields?(config: GatewayConfig): Record<string, unknown>;
  /**
   * State the primary of a cluster (`server.workers`, without Redis) holds for every worker, by
   * service name: each operation takes the arguments a worker's call sends (kernel/cluster/primary-channel.ts).
   */
  clusterState?(config: GatewayConfig): Record<string, ClusterService>;
  /** What the primary of a cluster of `workers` warns about this feature's part of the config, one log line each. */
  clusterWarnings?(config: GatewayConfig, workers: number): Array<{ fields: Record<string, unknown>; message: string }>;
}

/** The operations of one service the primary of a cluster holds, by name. */
export type ClusterService = Record<string, (...args: never[]) => Promise<unknown>>;

/** An environment variable that sets a key of the config (`auth.type`, dotted), as text unless `type` says otherwise. */
export interface EnvOverride {
  variable: string;
  key: string;
  type?: 'boolean' | 'integer';
}

/** A file the gateway reads at start-up: the key that names it (`auth.ca`), and whether a config reads it. */
export interface StartupFile {
  key: string;
  read(config: GatewayConfig): boolean;
}

/** The top-level keys the kernel itself owns and fills in. */
export const KERNEL_CONFIG_KEYS: readonly string[] = ['$schema', 'server', 'logging', 'observability', 'metrics', 'storage', 'redis', 'pipelines', 'plugins'];

const FEATURES: FeatureDefinition[] = [];

/** Returns `feature` as it is: what a feature module exports, typed. */
export function defineFeature(feature: FeatureDefinition): FeatureDefinition {
  return feature;
}

/**
 * Registers a feature's declaration, once (the same one again is a no-op), before any config is
 * read: the composition root registers the built-in features (src/config.ts). A key the kernel
 * or another feature owns is refused.
 */
export function registerFeature(feature: FeatureDefinition): void {
  if (FEATURES.includes(feature)) return;
  if (FEATURES.some((f) => f.name === feature.name)) throw new Error(`a feature named ${feature.name} is already registered`);
  for (const key of feature.configKeys) {
    const owner = KERNEL_CONFIG_KEYS.includes(key) ? 'the kernel' : FEATURES.find((f) => f.configKeys.includes(key))?.name;
    if (owner) throw new Error(`feature ${feature.name}: the config key ${key} is owned by ${owner}`);
  }
  FEATURES.push(feature);
}

/** The registered features, in the order they were registered. */
export function registeredFeatures(): readonly FeatureDefinition[] {
  return FEATURES;
}
