import type { Identity } from '../../kernel/engine/context.js';
import type { ConfiguredApiKey } from '../../generated/gateway.js';
import { timingSafeEqual } from 'node:crypto';
import { secretDigest } from './secrets.js';
import { ALL_SCOPES } from './scopes.js';
import type { TokenResource } from './token-service.js';

interface KeyEntry {
  /** SHA-256 of the key (32 bytes). */
  digest: Buffer;
  /** Unix seconds; undefined: never expires. */
  expiresAt?: number;
  identity: Identity;
}

export type KeyCheck = { ok: true; identity: Identity } | { ok: false; reason: 'unknown' | 'expired' };

/** `expiresAt` of a config key: Unix seconds or an ISO 8601 date. */
export function expiresAtSeconds(value: number | string | undefined, where: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return value;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new Error(`${where}: must be Unix seconds or an ISO 8601 date`);
  return Math.floor(ms / 1000);
}

/**
 * The keys of auth.apiKeys, hashed once at start-up (the values are not kept). A presented key
 * is hashed and compared with every entry in constant time.
 */
export class ConfigKeys {
  private readonly entries: KeyEntry[];

  constructor(keys: ConfiguredApiKey[] = []) {
    this.entries = keys.map((k, i) => ({
      digest: secretDigest(k.key),
      expiresAt: expiresAtSeconds(k.expiresAt, `auth.apiKeys[${i}].expiresAt`),
      identity: {
        kind: 'api-key',
        id: `config-key-${i}`,
        user: k.user,
        email: k.email,
        name: k.name,
        team: k.team,
        roles: k.roles,
        organization: k.organization,
        scopes: k.scopes ?? [...ALL_SCOPES],
        permissions: k.permissions,
      },
    }));
  }

  get size(): number {
    return this.entries.length;
  }

  /**
   * Every key (expired ones included) as GET /v1/auth/tokens lists it, in index order, with
   * `source: 'file'`: the shape of an issued key's resource, never the key's value, any part or
   * hash of it. A key without a user is listed under its id (as its usage is recorded).
   */
  resources(): TokenResource[] {
    return this.entries.map(({ identity: k, expiresAt }) => {
      const out = { id: k.id, object: 'auth.token', source: 'file' } as TokenResource;
      out.user = k.user ?? k.id;
      out.team = k.team ?? null;
      if (k.email !== undefined) out.email = k.email;
      if (k.name !== undefined) out.name = k.name;
      if (k.roles !== undefined) out.roles = [...k.roles];
      if (k.organization !== undefined) out.organization = k.organization;
      out.scopes = [...(k.scopes ?? ALL_SCOPES)];
      out.permissions = k.permissions ? structuredClone(k.permissions) : null;
      // The file holds no creation time.
      out.created_at = null;
      out.expires_at = expiresAt ?? null;
      out.revoked_at = null;
      out.mcp = k.permissions ? structuredClone(k.permissions) : null;
      out.blocked = false;
      return out;
    });
  }

  /** The identities of the keys that have not expired (for the tool servers' grants). */
  identities(): Identity[] {
    const now = Date.now() / 1000;
    return this.entries.filter((e) => e.expiresAt === undefined || e.expiresAt > now).map((e) => ({ ...e.identity }));
  }

  /** The identity of the key `id` (config-key-<n>) as this config defines it, or undefined when there is none or it expired. */
  identityById(id: string): Identity | undefined {
    const entry = this.entries.find((e) => e.identity.id === id);
    if (!entry || (entry.expiresAt !== undefined && entry.expiresAt <= Date.now() / 1000)) return undefined;
    return { ...entry.identity };
  }

  check(value: string): KeyCheck {
    const digest = secretDigest(value);
    let found: KeyEntry | undefined;
    for (const entry of this.entries) {
      // No early exit: every entry is compared.
      if (timingSafeEqual(digest, entry.digest) && !found) found = entry;
    }
    if (!found) return { ok: false, reason: 'unknown' };
    if (found.expiresAt !== undefined && found.expiresAt <= Date.now() / 1000) return { ok: false, reason: 'expired' };
    return { ok: true, identity: { ...found.identity } };
  }
}
