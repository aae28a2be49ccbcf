import { defineFeature } from '../../kernel/config/features.js';

/** The files-batches feature's part of the gateway config: the `batches` settings. */
export const filesBatchesFeature = defineFeature({ name: 'files-batches', configKeys: ['batches'] });
