/**
 * The gateway's config as the composition root reads it: the kernel's loader, checks and secret
 * scan, with the built-in features' declarations registered first (the keys each owns, their
 * defaults, the rules a schema cannot say, the files read at start-up, which fields hold
 * credentials, what --check must not connect to, what the start-up line shows...). The command line and the gateway read configs
 * through this module, so no config is read before the features declared their part of it.
 *
 * Each declaration is the feature's own (features/<name>/<name>-feature.ts, also exported from
 * its public entry); they are imported from those small files, not the public entries, so
 * reading a config (the health probe) loads no feature's code.
 */
import { registerFeature, type FeatureDefinition } from './kernel/config/features.js';
import { authFeature } from './features/auth/auth-feature.js';
import { mcpFeature } from './features/mcp/mcp-feature.js';
import { modelsFeature } from './features/models/models-feature.js';
import { guardrailsFeature } from './features/guardrails/guardrails-feature.js';
import { governanceFeature } from './features/governance/governance-feature.js';
import { filesBatchesFeature } from './features/files-batches/files-batches-feature.js';
import { consoleFeature } from './features/console/console-feature.js';

/** The built-in features, in the order their defaults are filled in and their rules run. */
export const BUILTIN_FEATURES: readonly FeatureDefinition[] = [authFeature, mcpFeature, modelsFeature, guardrailsFeature, governanceFeature, filesBatchesFeature, consoleFeature];

for (const feature of BUILTIN_FEATURES) registerFeature(feature);

export {
  buildConfig,
  configValueAt,
  checkConfigFile,
  checkConfigTree,
  configPathFrom,
  ConfigError,
  loadConfigFile,
  parseConfigText,
  startupFiles,
  type CheckedConfig,
  type LoadOptions,
} from './kernel/config/load-config.js';
export { configSecrets } from './kernel/config/config-secrets.js';
export { redactedConfig } from './kernel/config/redacted-config.js';
export { registeredFeatures } from './kernel/config/features.js';
