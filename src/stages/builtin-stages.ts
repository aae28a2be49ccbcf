import type { AnyStageDefinition } from '../kernel/engine/stage.js';
import { AUTH_STAGES } from '../features/auth/index.js';
import { MCP_STAGES } from '../features/mcp/index.js';
import { MODEL_STAGES } from '../features/models/index.js';
import normalizeError from './normalize-error.js';
import authenticate from './authenticate.js';
import rateLimit from './rate-limit.js';
import validate from './validate.js';
import route from './route.js';
import guardrail from './guardrail.js';
import cors from './cors.js';
import ops from './ops.js';
import notFound from './not-found.js';

/**
 * The stages that ship with the gateway: those of this folder (generic ones, and those that join
 * several features: authentication, rate limits, validation, routing, guardrails), and those each
 * feature keeps in its own stages/ folder and lists in its public entry (models: resource-shapes,
 * fallback, cache, retry, forward; mcp: authorize, mcp-forward; auth: forward-identity).
 * Capabilities add those of their features that need set-up (gateway-batches, token-operations,
 * protected-resource) and plugins add more.
 */
export const BUILTIN_STAGES: AnyStageDefinition[] = [
  normalizeError,
  authenticate,
  rateLimit,
  validate,
  route,
  guardrail,
  cors,
  ops,
  notFound,
  ...MODEL_STAGES,
  ...MCP_STAGES,
  ...AUTH_STAGES,
];
