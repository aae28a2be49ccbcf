import type { Identity } from '../../kernel/engine/context.js';
import type { AuthTokenCreateRequest, GatewayKeyLimits } from '../../generated/requests/auth-tokens-create.js';
import type { AuthTokenUpdateRequest } from '../../generated/requests/auth-tokens-update.js';
import type { Budget } from '../../generated/governance/budget.js';
import type { GatewayKey } from './gateway-key.js';
import { hashSecret, newTokenId, newTokenValue, parseLifetime, TOKEN_PREFIX } from './secrets.js';
import { badRequest } from '../../contract/errors/gateway-error.js';
import type { TokenPageQuery, TokenRecord, TokenStore } from './token-store.js';
import { ALL_SCOPES } from './scopes.js';

/** The token resource of the token operations (the value only on create and rotate). */
export interface TokenResource {
  id: string;
  object: 'auth.token';
  /** api: issued through the token operations; file: a key of the gateway's config file (auth.apiKeys), read-only through the API. */
  source: 'api' | 'file';
  token?: string;
  user: string;
  team: string | null;
  email?: string;
  name?: string;
  roles?: string[];
  organization?: string;
  scopes: string[];
  permissions: { servers?: string[]; tools?: string[] } | null;
  /** Unix seconds; null for a key of the config file (the file holds no creation time). */
  created_at: number | null;
  expires_at: number | null;
  revoked_at: number | null;
  rotated_at?: number;
  /** Catalogue models the key may use (names or globs); absent: every model. */
  models?: string[];
  /** The tool-server permissions (the same as `permissions`). */
  mcp: { servers?: string[]; tools?: string[] } | null;
  limits?: GatewayKeyLimits;
  budgets?: Budget[];
  metadata?: Record<string, unknown>;
  blocked: boolean;
  blocked_at?: number;
  /** Until when the value before the last rotation keeps working. */
  previous_valid_until?: number;
  /** The value's last four characters (the value itself is answered only on create and rotate). */
  last4?: string;
}

export type TokenCheck = { ok: true; identity: Identity; key: GatewayKey } | { ok: false; reason: 'unknown' | 'expired' | 'revoked' | 'blocked' };

/** The longest grace period of a rotation: 30 days. */
export const MAX_GRACE_PERIOD_S = 30 * 86_400;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** What newTokenId makes (ids of older forms included): anything else names no token, and never reaches a store. */
const TOKEN_ID = /^tok_[A-Za-z0-9_-]{1,64}$/;
const isTokenId = (id: string) => TOKEN_ID.test(id);

/** Whether the list's `search` (lower-case) finds a key of the config file: a part of its id, user, name, email, team or organization, as the store's search. */
function fileKeyFound(key: TokenResource, search: string): boolean {
  return [key.id, key.user, key.name, key.email, key.team, key.organization].some((v) => typeof v === 'string' && v.toLowerCase().includes(search));
}

/** The longest lifetime a token may have: ten years. */
export const MAX_TOKEN_LIFETIME_DAYS = 3650;
export const MAX_TOKEN_LIFETIME_S = MAX_TOKEN_LIFETIME_DAYS * 86_400;

/** A token lifetime in seconds; a 400 naming expiresIn when it is zero or longer than ten years. */
export function tokenLifetime(text: string, param = 'expiresIn'): number {
  let seconds: number;
  try {
    seconds = parseLifetime(text);
  } catch {
    throw badRequest(`${param} must be a number followed by d, h, m or s (e.g. 30d).`, param);
  }
  if (!Number.isSafeInteger(seconds) || seconds > MAX_TOKEN_LIFETIME_S) {
    throw badRequest(`${param} must be at most ${MAX_TOKEN_LIFETIME_DAYS} days (${MAX_TOKEN_LIFETIME_DAYS}d).`, param);
  }
  if (seconds < 1) throw badRequest(`${param} must be at least 1 second.`, param);
  return seconds;
}

export function toResource(record: TokenRecord, token?: string): TokenResource {
  const out: TokenResource = { id: record.id, object: 'auth.token', source: 'api' } as TokenResource;
  if (token) out.token = token;
  out.user = record.user;
  out.team = record.team;
  if (record.email !== null) out.email = record.email;
  if (record.name !== null) out.name = record.name;
  if (record.roles !== null) out.roles = record.roles;
  if (record.organization !== null) out.organization = record.organization;
  out.scopes = record.scopes;
  out.permissions = record.permissions;
  out.created_at = record.createdAt;
  out.expires_at = record.expiresAt;
  out.revoked_at = record.revokedAt;
  if (record.rotatedAt !== null) out.rotated_at = record.rotatedAt;
  if (record.models !== null) out.models = record.models;
  out.mcp = record.permissions;
  if (record.limits !== null) out.limits = record.limits;
  if (record.budgets !== null) out.budgets = record.budgets;
  if (record.metadata !== null) out.metadata = record.metadata;
  out.blocked = record.blockedAt !== null;
  if (record.blockedAt !== null) out.blocked_at = record.blockedAt;
  if (record.previousUntil !== null && record.previousUntil > nowSeconds()) out.previous_valid_until = record.previousUntil;
  if (record.last4) out.last4 = record.last4;
  return out;
}

/** The gateway key (contract section 8) a token record stands for. */
export function gatewayKeyOfToken(record: TokenRecord): GatewayKey {
  const key: GatewayKey = { id: record.id, user: record.user };
  if (record.team !== null) key.team = record.team;
  if (record.organization !== null) key.organization = record.organization;
  if (record.roles !== null) key.roles = record.roles;
  if (record.models !== null) key.models = record.models;
  if (record.limits !== null) key.limits = record.limits;
  if (record.budgets !== null) key.budgets = record.budgets;
  if (record.metadata !== null) key.metadata = record.metadata;
  return key;
}

/**
 * What a token record grants, made once per record: a record read from the store is shared by
 * every request that presents its token until the store changes, and so are its identity and key
 * (frozen: no request may change what another sees).
 */
const granted = new WeakMap<TokenRecord, { identity: Identity; key: GatewayKey }>();

function grantOf(record: TokenRecord): { identity: Identity; key: GatewayKey } {
  let grant = granted.get(record);
  if (!grant) {
    grant = { identity: Object.freeze(identityOfToken(record)), key: Object.freeze(gatewayKeyOfToken(record)) };
    granted.set(record, grant);
  }
  return grant;
}

/** The check of a token's record at `now` (undefined: no token has that value). */
function checkRecord(record: TokenRecord | undefined, now: number): TokenCheck {
  if (!record) return { ok: false, reason: 'unknown' };
  if (record.revokedAt !== null) return { ok: false, reason: 'revoked' };
  if (record.expiresAt !== null && record.expiresAt <= now) return { ok: false, reason: 'expired' };
  if (record.blockedAt !== null) return { ok: false, reason: 'blocked' };
  const { identity, key } = grantOf(record);
  return { ok: true, identity, key };
}

export function identityOfToken(record: TokenRecord): Identity {
  return {
    kind: 'token',
    id: record.id,
    user: record.user,
    email: record.email ?? undefined,
    name: record.name ?? undefined,
    team: record.team ?? undefined,
    roles: record.roles ?? undefined,
    organization: record.organization ?? undefined,
    scopes: record.scopes,
    permissions: record.permissions ?? undefined,
  };
}

/** Most token hashes a TokenService keeps by value (see rememberHash). */
const RECENT_HASHES = 10_000;

/**
 * Issues, lists, revokes and rotates gateway tokens, and checks a presented value. Values are
 * shown once and stored only as SHA-256 hashes; every check reads the store, so a revoked or
 * rotated token fails at once on every instance sharing it.
 */
export class TokenService {
  private readonly recentHashes = new Map<string, string>();

  constructor(
    private readonly store: TokenStore,
    private readonly defaultLifetime: string,
  ) {}

  async create(request: AuthTokenCreateRequest): Promise<TokenResource> {
    if (request.mcp !== undefined && request.permissions !== undefined) {
      throw badRequest('Give the tool-server permissions once: mcp or permissions, not both.', 'mcp');
    }
    const now = nowSeconds();
    const lifetime = request.expiresIn === undefined ? tokenLifetime(this.defaultLifetime, 'auth.tokenExpiration') : tokenLifetime(request.expiresIn);
    const record: TokenRecord = {
      id: newTokenId(),
      user: request.user,
      team: request.team ?? null,
      email: request.email ?? null,
      name: request.name ?? null,
      roles: request.roles ?? null,
      organization: request.organization ?? null,
      scopes: request.scopes ?? [...ALL_SCOPES],
      permissions: request.mcp ?? request.permissions ?? null,
      createdAt: now,
      expiresAt: now + lifetime,
      revokedAt: null,
      rotatedAt: null,
      models: request.models ?? null,
      limits: request.limits ?? null,
      budgets: request.budgets ?? null,
      metadata: request.metadata ?? null,
      blockedAt: request.blocked ? now : null,
      previousUntil: null,
    };
    const token = newTokenValue();
    record.last4 = token.slice(-4);
    await this.store.insert(record, hashSecret(token));
    return toResource(record, token);
  }

  async list(): Promise<TokenResource[]> {
    return (await this.store.list()).map((r) => toResource(r));
  }

  /**
   * One page of the key list: the keys of the config file (`fileKeys`, source file, in their
   * index order whatever the order) first, then the issued keys as the store pages them (see
   * TokenStore.page). `search` and `team` select among both. An `after` naming a listed file key
   * continues with the file keys after it, then the store's first keys; any other `after` pages
   * the store (an id in neither: { missingAfter: true }). hasMore: exactly when keys follow.
   */
  async page(query: TokenPageQuery, fileKeys: readonly TokenResource[] = []): Promise<{ data: TokenResource[]; hasMore: boolean } | { missingAfter: true }> {
    const files = fileKeys.filter((k) => (query.team === undefined || k.team === query.team) && (!query.search || fileKeyFound(k, query.search)));
    let fromFile = files;
    const { after, ...rest } = query;
    if (after !== undefined) {
      const at = files.findIndex((k) => k.id === after);
      if (at < 0) {
        const page = await this.store.page(query);
        return 'missingAfter' in page ? page : { data: page.records.map((r) => toResource(r)), hasMore: page.hasMore };
      }
      fromFile = files.slice(at + 1);
    }
    if (rest.limit === undefined) {
      const page = await this.store.page(rest);
      if ('missingAfter' in page) return page;
      return { data: [...fromFile, ...page.records.map((r) => toResource(r))], hasMore: false };
    }
    if (fromFile.length > rest.limit) return { data: fromFile.slice(0, rest.limit), hasMore: true };
    // The rest of the page from the store; a page the file keys fill reads one row: whether an issued key follows.
    const left = rest.limit - fromFile.length;
    const page = await this.store.page({ ...rest, limit: Math.max(left, 1) });
    if ('missingAfter' in page) return page;
    if (left === 0) return { data: fromFile, hasMore: page.records.length > 0 };
    return { data: [...fromFile, ...page.records.map((r) => toResource(r))], hasMore: page.hasMore };
  }

  /** The key `id` (without its value); undefined for an unknown id. */
  async get(id: string): Promise<TokenResource | undefined> {
    if (!isTokenId(id)) return undefined;
    const record = await this.store.get(id);
    return record ? toResource(record) : undefined;
  }

  /** Revokes (idempotent: revoking twice keeps the first time); undefined for an unknown id. */
  async revoke(id: string): Promise<TokenResource | undefined> {
    if (!isTokenId(id)) return undefined;
    const record = await this.store.revoke(id, nowSeconds());
    return record ? toResource(record) : undefined;
  }

  /** A token that may still be changed (edited or rotated): not revoked, not expired. */
  private async changeable(id: string): Promise<{ record: TokenRecord; now: number } | { problem: 'unknown' | 'revoked' | 'expired' }> {
    if (!isTokenId(id)) return { problem: 'unknown' };
    const record = await this.store.get(id);
    if (!record) return { problem: 'unknown' };
    const now = nowSeconds();
    if (record.revokedAt !== null) return { problem: 'revoked' };
    if (record.expiresAt !== null && record.expiresAt <= now) return { problem: 'expired' };
    return { record, now };
  }

  /**
   * Changes the editable fields of a key (a validated AuthTokenUpdateRequest): the fields sent
   * replace those of the key, null removes one; `limits` merges per limit. A revoked or expired
   * key cannot be changed. Every check after it (on this instance at once) sees the new fields.
   */
  async update(id: string, patch: AuthTokenUpdateRequest): Promise<{ resource?: TokenResource; problem?: 'unknown' | 'revoked' | 'expired' }> {
    const found = await this.changeable(id);
    if ('problem' in found) return found;
    const { record, now } = found;
    const next: TokenRecord = { ...record };
    if (patch.name !== undefined) next.name = patch.name;
    if (patch.models !== undefined) next.models = patch.models;
    if (patch.budgets !== undefined) next.budgets = patch.budgets?.length ? patch.budgets : null;
    if (patch.metadata !== undefined) next.metadata = patch.metadata;
    if (patch.limits !== undefined) {
      const limits: Record<string, number> = patch.limits === null ? {} : { ...(record.limits ?? {}) };
      for (const [name, value] of Object.entries(patch.limits ?? {})) {
        if (value === null || value === undefined) delete limits[name];
        else limits[name] = value;
      }
      next.limits = Object.keys(limits).length ? (limits as GatewayKeyLimits) : null;
    }
    if (patch.expires_at !== undefined) {
      if (patch.expires_at <= now) throw badRequest('expires_at must be in the future (Unix seconds).', 'expires_at');
      if (patch.expires_at > now + MAX_TOKEN_LIFETIME_S) throw badRequest(`expires_at must be at most ${MAX_TOKEN_LIFETIME_DAYS} days from now.`, 'expires_at');
      next.expiresAt = patch.expires_at;
    }
    const updated = await this.store.update(next);
    if (!updated) return { problem: 'unknown' };
    if (updated.revokedAt !== null) return { problem: 'revoked' };
    return { resource: toResource(updated) };
  }

  /** Blocks (true) or unblocks (false) a key; undefined for an unknown id. Blocking twice keeps the first time. */
  async setBlocked(id: string, blocked: boolean): Promise<TokenResource | undefined> {
    if (!isTokenId(id)) return undefined;
    const record = await this.store.get(id);
    if (!record) return undefined;
    if ((record.blockedAt !== null) === blocked) return toResource(record);
    const updated = await this.store.setBlocked(id, blocked ? nowSeconds() : null);
    return updated ? toResource(updated) : undefined;
  }

  /**
   * A new value for the same token (same id, user, scopes). The old value stops working at once,
   * or after `graceSeconds`. The lifetime starts again: expires_at moves to now + the token's
   * original lifetime.
   */
  async rotate(id: string, graceSeconds = 0): Promise<{ resource?: TokenResource; problem?: 'unknown' | 'revoked' | 'expired' }> {
    const found = await this.changeable(id);
    if ('problem' in found) return found;
    const { record, now } = found;
    const expiresAt = record.expiresAt === null ? null : now + (record.expiresAt - record.createdAt);
    const token = newTokenValue();
    const previousUntil = graceSeconds > 0 ? now + graceSeconds : null;
    const last4 = token.slice(-4);
    if (!(await this.store.rotate(id, hashSecret(token), now, expiresAt, previousUntil, last4))) return { problem: 'revoked' };
    return { resource: toResource({ ...record, expiresAt, rotatedAt: now, previousUntil, last4 }, token) };
  }

  /** Whether the token `id` still opens the gateway (known, not revoked, blocked or expired): an admin session made with it lives as long. */
  async stillValid(id: string): Promise<boolean> {
    if (!isTokenId(id)) return false;
    const record = await this.store.get(id);
    if (!record || record.revokedAt !== null || record.blockedAt !== null) return false;
    return record.expiresAt === null || record.expiresAt > nowSeconds();
  }

  /**
   * The usable tokens whose tool-server permissions are their own (at most `limit`, newest first),
   * as identities, and how many usable tokens have none (every server their scopes open).
   */
  async toolGrants(limit: number): Promise<{ restricted: Identity[]; unrestricted: number }> {
    const now = nowSeconds();
    const [restricted, unrestricted] = await Promise.all([this.store.withPermissions(now, limit), this.store.countWithoutPermissions(now)]);
    return { restricted: restricted.map(identityOfToken), unrestricted };
  }

  /** The identity of the token `id` as the store holds it now (its roles, user and team), or undefined once it no longer opens the gateway. */
  async currentIdentity(id: string): Promise<Identity | undefined> {
    if (!isTokenId(id)) return undefined;
    const record = await this.store.get(id);
    if (!record || record.revokedAt !== null || record.blockedAt !== null) return undefined;
    if (record.expiresAt !== null && record.expiresAt <= nowSeconds()) return undefined;
    return identityOfToken(record);
  }

  /** Whether the token `id` may still be used: not revoked, expired or blocked (a grant made with it lives only as long). */
  async usable(id: string): Promise<boolean> {
    if (!isTokenId(id)) return false;
    const record = await this.store.get(id);
    const now = nowSeconds();
    return !!record && record.revokedAt === null && record.blockedAt === null && (record.expiresAt === null || record.expiresAt > now);
  }

  async check(value: string): Promise<TokenCheck> {
    return this.checkNow(value);
  }

  /**
   * check's answer, without a promise when the store's cached lookup has it (the usual case
   * for a key in use on an embedded store); otherwise a promise of it.
   */
  checkNow(value: string): TokenCheck | Promise<TokenCheck> {
    if (!value.startsWith(TOKEN_PREFIX)) return { ok: false, reason: 'unknown' };
    const now = nowSeconds();
    const remembered = this.recentHashes.get(value);
    const tokenHash = remembered ?? hashSecret(value);
    const cached = this.store.findCachedByHash(tokenHash, now);
    if (cached) {
      if (remembered === undefined) this.rememberHash(value, tokenHash);
      return checkRecord(cached, now);
    }
    return this.store.findByHash(tokenHash, now).then((record) => {
      if (record && remembered === undefined) this.rememberHash(value, tokenHash);
      return checkRecord(record, now);
    });
  }

  /**
   * Keeps a token's hash by its value, once the store has known the token: a key in use is
   * hashed once, not on every request (SHA-256 of it was about 1.3 us a request). Made-up tokens
   * are never kept, so no caller can fill the map; at RECENT_HASHES it starts over. The hash of a
   * value never changes, so nothing here goes stale: whether the token still opens the gateway is
   * the store's answer each time. The values are held in this process's memory, as the requests
   * that brought them are.
   */
  private rememberHash(value: string, tokenHash: string): void {
    if (this.recentHashes.size >= RECENT_HASHES) this.recentHashes.clear();
    this.recentHashes.set(value, tokenHash);
  }
}
