import { defineSlot } from '../../kernel/engine/slot.js';

/**
 * Set when the gateway ran the tool loop for the request: its answer is the gateway's own (the
 * provider keeps none of it), so a kept response is never handed to the provider by id.
 */
export const TOOL_LOOP_RAN = defineSlot<true>('tool-loop-ran', 'a tool-loop-ran flag');
