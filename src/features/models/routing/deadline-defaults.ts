import type { GatewayConfig } from '../../../generated/gateway.js';
import { parseDuration } from '../../../kernel/config/defaults.js';

/** first_byte_timeout when neither the routing config nor routing.defaults sets one. */
export const DEFAULT_FIRST_BYTE_TIMEOUT_MS = 120_000;
/** idle_timeout when neither the routing config nor routing.defaults sets one. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

function ms(value: number | string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  return typeof value === 'number' ? value : parseDuration(value);
}

/**
 * The deadlines of every upstream attempt that sets none (contract section 3): the wait for the
 * first byte and the longest gap between two chunks, from routing.defaults or 120 s / 60 s. A
 * stream whose upstream stalls therefore ends (with the contract's error event) instead of
 * waiting forever; a deadline that fires is a 504 that retry and fallback may act on.
 */
export function upstreamDeadlines(config: GatewayConfig): { headersTimeout: number; bodyTimeout: number } {
  const defaults = config.routing?.defaults;
  return {
    headersTimeout: ms(defaults?.first_byte_timeout, DEFAULT_FIRST_BYTE_TIMEOUT_MS),
    bodyTimeout: ms(defaults?.idle_timeout, DEFAULT_IDLE_TIMEOUT_MS),
  };
}

/**
 * The deadlines routing.defaults sets itself (undefined where it sets none). An attempt whose
 * target sets none gets these on its precise timers (AttemptTimers), as values set in a
 * routing config do, so they fire on time: undici's own timers, which keep them as well, are
 * coarse (up to about a second late). The built-in 120 s / 60 s are left to undici alone: an
 * attempt then arms no timer of its own, and a second matters little on two minutes.
 */
export function configuredDeadlines(config: GatewayConfig): { firstByteTimeout?: number; idleTimeout?: number } {
  const defaults = config.routing?.defaults;
  const out: { firstByteTimeout?: number; idleTimeout?: number } = {};
  if (defaults?.first_byte_timeout !== undefined) out.firstByteTimeout = ms(defaults.first_byte_timeout, DEFAULT_FIRST_BYTE_TIMEOUT_MS);
  if (defaults?.idle_timeout !== undefined) out.idleTimeout = ms(defaults.idle_timeout, DEFAULT_IDLE_TIMEOUT_MS);
  return out;
}
