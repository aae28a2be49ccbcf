import { createHash } from 'node:crypto';
import { GatewayError } from '../../../contract/errors/gateway-error.js';
import type { OAuthServerStore } from './as-store.js';

/** What a client address is counted under: its SHA-256 (the store keeps no address). */
export function clientKey(address: string | undefined): string {
  return createHash('sha256')
    .update(address ?? 'unknown')
    .digest('base64url');
}

/**
 * Failed logins at /oauth/login, counted per client address in a fixed window (in the store every
 * instance shares): past `max` failures, every login from that address is refused with 429 and
 * Retry-After until the window ends (a correct key included: a guesser learns nothing more).
 */
export class LoginThrottle {
  constructor(
    private readonly store: OAuthServerStore,
    private readonly max: number,
    /** The window, in seconds. */
    private readonly window: number,
  ) {}

  /** Refuses (429) a client past its failures; resolves otherwise. */
  async check(address: string | undefined, now: number): Promise<void> {
    const { failures, windowEnds } = await this.store.loginFailures(clientKey(address), now);
    if (failures < this.max) return;
    const retryAfter = Math.max(1, windowEnds - now);
    throw new GatewayError('rate_limit_exceeded', `Too many failed logins from this address. Retry after ${retryAfter} s.`, {
      headers: { 'retry-after': String(retryAfter) },
      retryAfter,
    });
  }

  failed(address: string | undefined, now: number): Promise<void> {
    return this.store.countLoginFailure(clientKey(address), now, this.window);
  }
}
