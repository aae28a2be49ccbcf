import { defineFeature } from '../../kernel/config/features.js';

/** The guardrails feature's part of the gateway config: the `guardrails` by id. */
export const guardrailsFeature = defineFeature({ name: 'guardrails', configKeys: ['guardrails'] });
