import type { Identity } from '../../kernel/engine/context.js';
import type { GatewayKey } from './gateway-key.js';
import type { ConfigKeys } from './config-keys.js';
import { TOKEN_PREFIX } from './secrets.js';
import type { TokenCheck, TokenService } from './token-service.js';

/** A valid credential's identity and the gateway key it is (contract section 8); a refusal says why (`blocked`: a valid key its owner blocked, 403). */
export type CredentialCheck = { ok: true; identity: Identity; key: GatewayKey } | { ok: false; message: string; blocked?: true };

const REASONS = {
  unknown: 'The credential is not valid.',
  expired: 'The credential has expired.',
  revoked: 'The token has been revoked.',
  blocked: 'The key is blocked (POST /v1/auth/tokens/{id}/unblock lifts it).',
} as const;

/** The gateway key of a config key (auth.apiKeys): every model, no limits of its own. */
export function gatewayKeyOfIdentity(identity: Identity): GatewayKey {
  const key: GatewayKey = { id: identity.id, user: identity.user ?? identity.id };
  if (identity.team) key.team = identity.team;
  if (identity.organization) key.organization = identity.organization;
  if (identity.roles) key.roles = identity.roles;
  return key;
}

function fromTokenCheck(result: TokenCheck): CredentialCheck {
  if (result.ok) return result;
  return result.reason === 'blocked' ? { ok: false, message: REASONS.blocked, blocked: true } : { ok: false, message: REASONS[result.reason] };
}

/**
 * Checks a gateway credential: a token issued by the token operations (recognized by its
 * prefix, checked against the store) or, when `configKeys` are accepted, a key of auth.apiKeys.
 * The answer comes without a promise when nothing had to be read from the store.
 */
export function checkGatewayCredential(value: string, tokens: TokenService, keys: ConfigKeys | undefined): CredentialCheck | Promise<CredentialCheck> {
  if (value.startsWith(TOKEN_PREFIX)) {
    const result = tokens.checkNow(value);
    return result instanceof Promise ? result.then(fromTokenCheck) : fromTokenCheck(result);
  }
  if (keys) {
    const result = keys.check(value);
    return result.ok ? { ...result, key: gatewayKeyOfIdentity(result.identity) } : { ok: false, message: REASONS[result.reason] };
  }
  return { ok: false, message: REASONS.unknown };
}
