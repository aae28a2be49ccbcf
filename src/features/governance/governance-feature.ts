import { defineFeature } from '../../kernel/config/features.js';

/**
 * The governance feature's part of the gateway config: the model catalogue (`models`),
 * `pricing`, `budgets`, `tenants`, held `credentials` and how `secrets` are kept at rest, whose
 * `key` (GATEWAY_SECRET_KEY) and `previousKeys` are credentials.
 */
export const governanceFeature = defineFeature({
  name: 'governance',
  configKeys: ['models', 'pricing', 'budgets', 'tenants', 'credentials', 'secrets'],
  envOverrides: [{ variable: 'GATEWAY_SECRET_KEY', key: 'secrets.key' }],
  secretFields: ['key', 'previousKeys'],
});
