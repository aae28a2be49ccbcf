import type { AnyStageDefinition } from '../kernel/engine/stage.js';
import normalizeError from './normalize-error.js';
import authenticate from './authenticate.js';
import rateLimit from './rate-limit.js';
import validate from './validate.js';
import resourceShapes from './resource-shapes.js';
import route from './route.js';
import fallback from './fallback.js';
import guardrail from './guardrail.js';
import cache from './cache.js';
import retry from './retry.js';
import forward from './forward.js';
import forwardIdentity from './forward-identity.js';
import cors from './cors.js';
import authorize from './authorize.js';
import mcpForward from './mcp-forward.js';
import ops from './ops.js';
import notFound from './not-found.js';

/**
 * The stages that ship with the gateway; capabilities add those of their features
 * (gateway-batches, token-operations, protected-resource) and plugins add more.
 */
export const BUILTIN_STAGES: AnyStageDefinition[] = [
  normalizeError,
  authenticate,
  rateLimit,
  validate,
  resourceShapes,
  route,
  fallback,
  guardrail,
  cache,
  retry,
  forward,
  forwardIdentity,
  cors,
  authorize,
  mcpForward,
  ops,
  notFound,
];
