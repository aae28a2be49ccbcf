import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Identity } from '../../kernel/engine/context.js';
import { defineSlot } from '../../kernel/engine/slot.js';
import type { IdentityForwardingConfig } from '../../generated/gateway.js';

/** The caller's identity headers, set by the forward-identity stage for the forward stages to send. */
export const IDENTITY_FORWARD_HEADERS = defineSlot<Record<string, string>>('identity-headers', "the caller's identity headers");

/** The identity values the gateway forwards, each one only when it has a value. */
export interface ForwardedIdentity {
  email?: string;
  name?: string;
  team?: string;
  /** Comma-separated, as in X-User-Roles. */
  roles?: string;
  organization?: string;
}

export type IdentityField = keyof ForwardedIdentity;

const FIELDS: IdentityField[] = ['email', 'name', 'team', 'roles', 'organization'];

/** Header name of each forwarded field. */
export const IDENTITY_HEADERS: Record<IdentityField, string> = {
  email: 'X-User-Email',
  name: 'X-User-Name',
  team: 'X-User-Team',
  roles: 'X-User-Roles',
  organization: 'X-Organization-Id',
};
export const SIGNATURE_HEADER = 'X-Gateway-Identity-Signature';

/** Where a process tool server finds the same values: `params._meta[IDENTITY_META_KEY]`. */
export const IDENTITY_META_KEY = 'io.gateway/identity';

/** Every header a caller might send to pose as someone else; dropped before anything is forwarded. */
export const FORGEABLE_HEADERS = [...Object.values(IDENTITY_HEADERS), SIGNATURE_HEADER].map((h) => h.toLowerCase());

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function clean(value: string | undefined): string | undefined {
  const v = value?.trim();
  // A value that could split a header line is never forwarded.
  return v && !/[\r\n\0]/.test(v) ? v : undefined;
}

/**
 * The identity values of a caller, by the contract's rules: name is the identity's name or else
 * its user (tokens and keys); email its email, or else its user when that is an email address;
 * roles comma-separated; organization falls back to identityForwarding.organizationId. Limited
 * to identityForwarding.headers when given. Anonymous callers (auth disabled) forward nothing.
 */
export function forwardedIdentity(identity: Identity | null | undefined, config: IdentityForwardingConfig = {}): ForwardedIdentity {
  if (!identity || identity.kind === 'anonymous' || config.enabled === false) return {};
  const byUser = identity.kind === 'token' || identity.kind === 'api-key';
  const all: ForwardedIdentity = {
    email: clean(identity.email) ?? (byUser && identity.user && EMAIL.test(identity.user) ? clean(identity.user) : undefined),
    name: clean(identity.name) ?? (byUser ? clean(identity.user) : undefined),
    team: clean(identity.team),
    roles: clean(
      identity.roles
        ?.map((r) => r.trim())
        .filter(Boolean)
        .join(','),
    ),
    organization: clean(identity.organization) ?? clean(config.organizationId),
  };
  const allowed = config.headers?.length ? new Set<string>(config.headers) : undefined;
  const out: ForwardedIdentity = {};
  for (const field of FIELDS) {
    if (all[field] !== undefined && (!allowed || allowed.has(field))) out[field] = all[field];
  }
  return out;
}

/** Signatures made this second, by secret and payload: a busy caller is signed once a second. */
let signedSecond = 0;
const signedThisSecond = new Map<string, string>();

/** `t=<unix>,v1=<hex HMAC-SHA256 of "t.email.name.team.roles.org">`, missing fields as empty strings. */
export function identitySignature(values: ForwardedIdentity, secret: string, unixSeconds = Math.floor(Date.now() / 1000)): string {
  const payload = [String(unixSeconds), values.email ?? '', values.name ?? '', values.team ?? '', values.roles ?? '', values.organization ?? ''].join('.');
  if (unixSeconds !== signedSecond) {
    signedSecond = unixSeconds;
    signedThisSecond.clear();
  }
  const key = `${secret.length}:${secret}\n${payload}`;
  const known = signedThisSecond.get(key);
  if (known) return known;
  const signature = `t=${unixSeconds},v1=${createHmac('sha256', secret).update(payload).digest('hex')}`;
  if (signedThisSecond.size < 10_000) signedThisSecond.set(key, signature);
  return signature;
}

/**
 * The headers that carry a caller's identity to a tool server (or, through the forward-identity
 * stage, to a provider): one per field with a value, plus the signature when a signing secret is
 * configured and there is something to sign.
 */
export function identityHeaders(identity: Identity | null | undefined, config: IdentityForwardingConfig = {}, unixSeconds?: number): Record<string, string> {
  const values = forwardedIdentity(identity, config);
  const headers: Record<string, string> = {};
  for (const field of FIELDS) {
    const value = values[field];
    if (value === undefined) continue;
    // A value no header can carry (beyond Latin-1) is not sent, and not signed either.
    if (/[^\t\x20-\x7e\x80-\xff]/.test(value)) delete values[field];
    else headers[IDENTITY_HEADERS[field]] = value;
  }
  if (config.signingSecret && Object.keys(headers).length > 0) headers[SIGNATURE_HEADER] = identitySignature(values, config.signingSecret, unixSeconds);
  return headers;
}

/** Removes identity headers a caller sent itself, so they can never be passed on. */
export function dropForgedIdentityHeaders(headers: IncomingHttpHeaders): void {
  // Nearly always absent: looked up, not deleted.
  for (const name of FORGEABLE_HEADERS) if (headers[name] !== undefined) delete headers[name];
}
