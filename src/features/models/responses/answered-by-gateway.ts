import { defineSlot } from '../../../kernel/engine/slot.js';

/**
 * Set when a stage of the gateway made the request's answer itself (the tool loop does): the
 * provider keeps none of it, so a kept response is never handed to the provider by id.
 */
export const ANSWERED_BY_GATEWAY = defineSlot<true>('answered-by-gateway', 'an answered-by-gateway flag');
