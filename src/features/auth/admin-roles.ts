import type { Identity } from '../../kernel/engine/context.js';

/** The roles that open the admin API to a gateway key (the admin token is always `admin`). */
export const ADMIN_ROLES = ['admin', 'viewer', 'team_admin'] as const;
export type AdminRole = (typeof ADMIN_ROLES)[number];

/**
 * What the caller of an admin route may do: `admin` reads and writes everything, `viewer` reads
 * everything and writes nothing, `team_admin` reads and writes only its own team's users, keys
 * and budgets (`team` is the key's team; none: nothing).
 */
export interface AdminAccess {
  role: AdminRole;
  team?: string;
}

/** The admin token's access. */
export const FULL_ADMIN: AdminAccess = Object.freeze({ role: 'admin' }) as AdminAccess;

/** A user's roles as the tenants know them (config file or admin API); undefined: no such user. */
export type UserRoles = (user: string) => Promise<string[] | undefined>;

/**
 * The admin access a key gives among `allowed` roles: from the roles on the key and those of its
 * user in the tenants, the widest (admin, then viewer, then team_admin); undefined: none.
 */
export function adminAccessOf(identity: Identity, userRoles: readonly string[] | undefined, allowed: readonly AdminRole[]): AdminAccess | undefined {
  const held = new Set([...(identity.roles ?? []), ...(userRoles ?? [])]);
  if (held.has('admin') && allowed.includes('admin')) return FULL_ADMIN;
  if (held.has('viewer') && allowed.includes('viewer')) return { role: 'viewer' };
  if (held.has('team_admin') && allowed.includes('team_admin')) return identity.team ? { role: 'team_admin', team: identity.team } : { role: 'team_admin' };
  return undefined;
}
