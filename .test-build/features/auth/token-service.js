import { hashSecret, newTokenId, newTokenValue, parseLifetime, TOKEN_PREFIX } from './secrets.js';
import { badRequest } from '../../contract/errors/gateway-error.js';
import { ALL_SCOPES } from './scopes.js';
const nowSeconds = () => Math.floor(Date.now() / 1000);
/** What newTokenId makes (ids of older forms included): anything else names no token, and never reaches a store. */
const TOKEN_ID = /^tok_[A-Za-z0-9_-]{1,64}$/;
const isTokenId = (id) => TOKEN_ID.test(id);
/** The longest lifetime a token may have: ten years. */
export const MAX_TOKEN_LIFETIME_DAYS = 3650;
export const MAX_TOKEN_LIFETIME_S = MAX_TOKEN_LIFETIME_DAYS * 86_400;
/** A token lifetime in seconds; a 400 naming expiresIn when it is zero or longer than ten years. */
export function tokenLifetime(text, param = 'expiresIn') {
    let seconds;
    try {
        seconds = parseLifetime(text);
    }
    catch {
        throw badRequest(`${param} must be a number followed by d, h, m or s (e.g. 30d).`, param);
    }
    if (!Number.isSafeInteger(seconds) || seconds > MAX_TOKEN_LIFETIME_S) {
        throw badRequest(`${param} must be at most ${MAX_TOKEN_LIFETIME_DAYS} days (${MAX_TOKEN_LIFETIME_DAYS}d).`, param);
    }
    if (seconds < 1)
        throw badRequest(`${param} must be at least 1 second.`, param);
    return seconds;
}
export function toResource(record, token) {
    const out = { id: record.id, object: 'auth.token' };
    if (token)
        out.token = token;
    out.user = record.user;
    out.team = record.team;
    if (record.email !== null)
        out.email = record.email;
    if (record.name !== null)
        out.name = record.name;
    if (record.roles !== null)
        out.roles = record.roles;
    if (record.organization !== null)
        out.organization = record.organization;
    out.scopes = record.scopes;
    out.permissions = record.permissions;
    out.created_at = record.createdAt;
    out.expires_at = record.expiresAt;
    out.revoked_at = record.revokedAt;
    if (record.rotatedAt !== null)
        out.rotated_at = record.rotatedAt;
    return out;
}
export function identityOfToken(record) {
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
/**
 * Issues, lists, revokes and rotates gateway tokens, and checks a presented value. Values are
 * shown once and stored only as SHA-256 hashes; every check reads the store, so a revoked or
 * rotated token fails at once on every instance sharing it.
 */
export class TokenService {
    store;
    defaultLifetime;
    constructor(store, defaultLifetime) {
        this.store = store;
        this.defaultLifetime = defaultLifetime;
    }
    async create(request) {
        const now = nowSeconds();
        const lifetime = request.expiresIn === undefined ? tokenLifetime(this.defaultLifetime, 'auth.tokenExpiration') : tokenLifetime(request.expiresIn);
        const record = {
            id: newTokenId(),
            user: request.user,
            team: request.team ?? null,
            email: request.email ?? null,
            name: request.name ?? null,
            roles: request.roles ?? null,
            organization: request.organization ?? null,
            scopes: request.scopes ?? [...ALL_SCOPES],
            permissions: request.permissions ?? null,
            createdAt: now,
            expiresAt: now + lifetime,
            revokedAt: null,
            rotatedAt: null,
        };
        const token = newTokenValue();
        await this.store.insert(record, hashSecret(token));
        return toResource(record, token);
    }
    async list() {
        return (await this.store.list()).map((r) => toResource(r));
    }
    /** Revokes (idempotent: revoking twice keeps the first time); undefined for an unknown id. */
    async revoke(id) {
        if (!isTokenId(id))
            return undefined;
        const record = await this.store.revoke(id, nowSeconds());
        return record ? toResource(record) : undefined;
    }
    /**
     * A new value for the same token (same id, user, scopes); the old value stops working at once.
     * The lifetime starts again: expires_at moves to now + the token's original lifetime.
     */
    async rotate(id) {
        if (!isTokenId(id))
            return { problem: 'unknown' };
        const record = await this.store.get(id);
        if (!record)
            return { problem: 'unknown' };
        const now = nowSeconds();
        if (record.revokedAt !== null)
            return { problem: 'revoked' };
        if (record.expiresAt !== null && record.expiresAt <= now)
            return { problem: 'expired' };
        const expiresAt = record.expiresAt === null ? null : now + (record.expiresAt - record.createdAt);
        const token = newTokenValue();
        if (!(await this.store.rotate(id, hashSecret(token), now, expiresAt)))
            return { problem: 'revoked' };
        return { resource: toResource({ ...record, expiresAt, rotatedAt: now }, token) };
    }
    /** Checks a presented value against the store (expiry and revocation included). */
    async check(value) {
        if (!value.startsWith(TOKEN_PREFIX))
            return { ok: false, reason: 'unknown' };
        const record = await this.store.findByHash(hashSecret(value));
        if (!record)
            return { ok: false, reason: 'unknown' };
        if (record.revokedAt !== null)
            return { ok: false, reason: 'revoked' };
        if (record.expiresAt !== null && record.expiresAt <= nowSeconds())
            return { ok: false, reason: 'expired' };
        return { ok: true, identity: identityOfToken(record) };
    }
}
//# sourceMappingURL=token-service.js.map