import type { Capability } from './capability.js';

/** Built-in capabilities, set up in this order. */
export const CAPABILITIES: Capability[] = [];
