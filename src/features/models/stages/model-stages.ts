import type { AnyStageDefinition } from '../../../kernel/engine/stage.js';
import resourceShapes from './resource-shapes.js';
import fallback from './fallback.js';
import cache from './cache.js';
import retry from './retry.js';
import forward from './forward.js';

/**
 * The stages of the models feature, which only provider-routed requests run: the shapes of
 * gateway-served resources, the routing strategy's attempts, the response cache, retries and
 * the call to the provider. They are built-in stages (src/stages/builtin-stages.ts lists them).
 */
export const MODEL_STAGES: AnyStageDefinition[] = [resourceShapes, fallback, cache, retry, forward];
