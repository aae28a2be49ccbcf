import { parseDuration } from '../../../kernel/config/defaults.js';
/** first_byte_timeout when neither the routing config nor routing.defaults sets one. */
export const DEFAULT_FIRST_BYTE_TIMEOUT_MS = 120_000;
/** idle_timeout when neither the routing config nor routing.defaults sets one. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
function ms(value, fallback) {
    if (value === undefined)
        return fallback;
    return typeof value === 'number' ? value : parseDuration(value);
}
/**
 * The deadlines of every upstream attempt that sets none (contract section 3): the wait for the
 * first byte and the longest gap between two chunks, from routing.defaults or 120 s / 60 s. A
 * stream whose upstream stalls therefore ends (with the contract's error event) instead of
 * waiting forever; a deadline that fires is a 504 that retry and fallback may act on.
 */
export function upstreamDeadlines(config) {
    const defaults = config.routing?.defaults;
    return {
        headersTimeout: ms(defaults?.first_byte_timeout, DEFAULT_FIRST_BYTE_TIMEOUT_MS),
        bodyTimeout: ms(defaults?.idle_timeout, DEFAULT_IDLE_TIMEOUT_MS),
    };
}
//# sourceMappingURL=deadline-defaults.js.map