import type { Capability } from './capability.js';
import { storeCapability } from './store/store-capability.js';
import { authCapability } from './auth/auth-capability.js';
import { mcpCapability } from './mcp/mcp-capability.js';
import { routingCapability } from './routing/routing-capability.js';
import { filesBatchesCapability } from './batches/files-batches-capability.js';

/** Built-in capabilities, set up in this order. */
export const CAPABILITIES: Capability[] = [
  storeCapability,
  authCapability,
  mcpCapability,
  routingCapability,
  filesBatchesCapability,
];
