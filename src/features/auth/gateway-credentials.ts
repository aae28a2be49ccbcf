import type { Identity } from '../../kernel/engine/context.js';
import type { ConfigKeys } from './config-keys.js';
import { TOKEN_PREFIX } from './secrets.js';
import type { TokenService } from './token-service.js';

export type CredentialCheck = { ok: true; identity: Identity } | { ok: false; message: string };

const REASONS = {
  unknown: 'The credential is not valid.',
  expired: 'The credential has expired.',
  revoked: 'The token has been revoked.',
} as const;

/**
 * Checks a gateway credential: a token issued by the token operations (recognized by its
 * prefix, checked against the store) or, when `configKeys` are accepted, a key of auth.apiKeys.
 */
export async function checkGatewayCredential(value: string, tokens: TokenService, keys: ConfigKeys | undefined): Promise<CredentialCheck> {
  if (value.startsWith(TOKEN_PREFIX)) {
    const result = await tokens.check(value);
    return result.ok ? result : { ok: false, message: REASONS[result.reason] };
  }
  if (keys) {
    const result = keys.check(value);
    return result.ok ? result : { ok: false, message: REASONS[result.reason] };
  }
  return { ok: false, message: REASONS.unknown };
}
