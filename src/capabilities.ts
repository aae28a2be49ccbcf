import type { Capability } from './kernel/capability.js';
import { storeCapability } from './kernel/store/store-capability.js';
import { authCapability } from './features/auth/auth-capability.js';
import { tenantsCapability } from './features/governance/tenants/tenants-capability.js';
import { mcpCapability } from './features/mcp/mcp-capability.js';
import { routingCapability } from './features/models/routing/routing-capability.js';
import { guardrailsCapability } from './features/guardrails/index.js';
import { filesBatchesCapability } from './features/files-batches/files-batches-capability.js';
import { responsesCapability } from './features/models/responses/responses-capability.js';
import { budgetsCapability } from './features/governance/budgets/budgets-capability.js';
import { governanceCapability } from './features/governance/governance-capability.js';
import { meteringCapability } from './features/governance/metering/metering-capability.js';
import { toolLoopCapability } from './features/tool-loop/tool-loop-capability.js';
import { consoleCapability } from './features/console/console-capability.js';

/** Built-in capabilities, set up in this order. */
export const CAPABILITIES: Capability[] = [
  storeCapability,
  authCapability,
  tenantsCapability,
  mcpCapability,
  routingCapability,
  guardrailsCapability,
  governanceCapability,
  filesBatchesCapability,
  responsesCapability,
  toolLoopCapability,
  budgetsCapability,
  meteringCapability,
  consoleCapability,
];
