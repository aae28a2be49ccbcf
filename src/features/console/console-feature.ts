import { defineFeature } from '../../kernel/config/features.js';

/** The console feature's part of the gateway config: the admin console (`ui`). */
export const consoleFeature = defineFeature({ name: 'console', configKeys: ['ui'] });
