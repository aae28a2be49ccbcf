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

/** A user as the tenants know it (config file or admin API): its roles, and the team they were given in. */
export interface TenantUser {
  roles: string[];
  team?: string;
}

/** A user of the tenants (its roles and team); undefined: no such user. */
export type UserRoles = (user: string) => Promise<TenantUser | undefined>;

/**
 * The admin access a key gives among `allowed` roles: from the roles on the key and those of its
 * user in the tenants, the widest (admin, then viewer, then team_admin); undefined: none.
 *
 * A `team_admin` role held by the user record was given within the user's team (a team_admin
 * may give it to its own users): it manages that team only, so it applies only to a credential
 * of that same team. Otherwise the team_admin of one team could make a user record named like
 * the holder of another team's key, and that key would manage the other team.
 */
export function adminAccessOf(identity: Identity, user: TenantUser | undefined, allowed: readonly AdminRole[]): AdminAccess | undefined {
  const own = new Set(identity.roles ?? []);
  const ofUser = new Set(user?.roles ?? []);
  const holds = (role: AdminRole) => own.has(role) || ofUser.has(role);
  if (holds('admin') && allowed.includes('admin')) return FULL_ADMIN;
  if (holds('viewer') && allowed.includes('viewer')) return { role: 'viewer' };
  if (!allowed.includes('team_admin')) return undefined;
  if (own.has('team_admin')) return identity.team ? { role: 'team_admin', team: identity.team } : { role: 'team_admin' };
  if (ofUser.has('team_admin') && user?.team !== undefined && identity.team === user.team) return { role: 'team_admin', team: user.team };
  return undefined;
}
