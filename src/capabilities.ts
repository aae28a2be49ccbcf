import type { Capability } from './capability.js';
import { storeCapability } from './store/store-capability.js';

/** Built-in capabilities, set up in this order. */
export const CAPABILITIES: Capability[] = [
  storeCapability,
];
