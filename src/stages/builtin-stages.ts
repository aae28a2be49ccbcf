import type { StageDefinition } from '../engine/stage.js';
import normalizeError from './normalize-error.js';
import authenticate from './authenticate.js';
import validate from './validate.js';
import route from './route.js';
import forward from './forward.js';
import forwardIdentity from './forward-identity.js';
import rateLimit from './rate-limit.js';
import guardrail from './guardrail.js';
import cache from './cache.js';
import retry from './retry.js';
import resourceShapes from './resource-shapes.js';

/** The stages that ship with the gateway; plugins add more. */
export const BUILTIN_STAGES: StageDefinition[] = [normalizeError, authenticate, validate, route, forward, forwardIdentity, rateLimit, guardrail, cache, retry, resourceShapes];
