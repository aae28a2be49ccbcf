import { stringify } from 'yaml';
import type { GatewayConfig } from '../generated/gateway.js';
import { redactedConfig } from '../config.js';
// The built-in providers declare their secret settings (aws_access_key_id, ...) when loaded.
import '../features/models/providers/builtin-providers.js';

export { redactedConfig };

/** The effective config as YAML, secrets masked (what --print-config prints). */
export function printableConfig(config: GatewayConfig): string {
  return stringify(redactedConfig(config), { lineWidth: 0 });
}
