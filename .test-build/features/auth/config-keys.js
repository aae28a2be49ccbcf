import { digestsEqual, hashSecret } from './secrets.js';
import { ALL_SCOPES } from './scopes.js';
/** `expiresAt` of a config key: Unix seconds or an ISO 8601 date. */
export function expiresAtSeconds(value, where) {
    if (value === undefined)
        return undefined;
    if (typeof value === 'number')
        return value;
    if (/^\d+$/.test(value.trim()))
        return Number(value.trim());
    const ms = Date.parse(value);
    if (Number.isNaN(ms))
        throw new Error(`${where}: must be Unix seconds or an ISO 8601 date`);
    return Math.floor(ms / 1000);
}
/**
 * The keys of auth.apiKeys, hashed once at start-up (the values are not kept). A presented key
 * is hashed and compared with every entry in constant time.
 */
export class ConfigKeys {
    entries;
    constructor(keys = []) {
        this.entries = keys.map((k, i) => ({
            hash: hashSecret(k.key),
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
    get size() {
        return this.entries.length;
    }
    check(value) {
        const hash = hashSecret(value);
        let found;
        for (const entry of this.entries) {
            // No early exit: every entry is compared.
            if (digestsEqual(hash, entry.hash) && !found)
                found = entry;
        }
        if (!found)
            return { ok: false, reason: 'unknown' };
        if (found.expiresAt !== undefined && found.expiresAt <= Date.now() / 1000)
            return { ok: false, reason: 'expired' };
        return { ok: true, identity: { ...found.identity } };
    }
}
//# sourceMappingURL=config-keys.js.map