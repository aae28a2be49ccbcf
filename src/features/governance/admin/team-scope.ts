import { forbidden } from '../../../contract/errors/gateway-error.js';
import type { AdminAccess, TokenResource } from '../../auth/index.js';
import type { TenantKind } from '../tenants/tenant-store.js';
import type { TenantService } from '../tenants/tenant-service.js';

/** The roles a team_admin may hand out (to its users and keys): none that reaches beyond its team. */
const TEAM_GRANTABLE = new Set(['team_admin']);

type Tokens = { get(id: string): Promise<TokenResource | undefined> };

/**
 * What each admin role may see and change: admin everything; viewer reads everything; team_admin
 * reads and writes only its own team's users, keys and budgets (and reads its team).
 */
export class TeamScope {
  constructor(
    private readonly tenants: TenantService,
    private readonly tokens: Tokens,
  ) {}

  /** Refuses any write to a viewer (403). */
  refuseViewerWrite(access: AdminAccess): void {
    if (access.role === 'viewer') throw forbidden('The viewer role reads the admin API; it cannot change anything.');
  }

  /** The team of a team_admin (403 when its key names none). */
  teamOf(access: AdminAccess): string {
    if (!access.team) throw forbidden('This team_admin key belongs to no team, so it manages nothing; give the key a team.');
    return access.team;
  }

  /** Whether the caller may read this object. */
  async canRead(access: AdminAccess, kind: TenantKind, object: Record<string, unknown>): Promise<boolean> {
    if (access.role !== 'team_admin') return true;
    if (!access.team) return false;
    if (kind === 'team') return object.id === access.team;
    return this.inTeam(access.team, kind, object);
  }

  /** Refuses (403) a write the caller may not make to this object (as it is, and as it would be). */
  async checkWrite(access: AdminAccess, kind: TenantKind, object: Record<string, unknown>): Promise<void> {
    this.refuseViewerWrite(access);
    if (access.role !== 'team_admin') return;
    const team = this.teamOf(access);
    if (kind === 'organization' || kind === 'team') throw forbidden(`A team_admin manages its team's users, keys and budgets, not ${kind}s.`);
    if (!(await this.inTeam(team, kind, object))) throw forbidden(`A team_admin manages only its own team's (${team}) users, keys and budgets.`);
    if (kind === 'user') this.checkRoles(object.roles, 'roles');
  }

  /** A key a team_admin issues: its team (set when absent), roles it may grant, a user of its team. */
  async checkNewKey(access: AdminAccess, body: Record<string, unknown>): Promise<void> {
    const team = this.teamOf(access);
    body.team ??= team;
    if (body.team !== team) throw forbidden(`A team_admin issues keys of its own team (${team}) only.`);
    this.checkRoles(body.roles, 'roles');
    if (typeof body.user === 'string') {
      const user = await this.tenants.get('user', body.user);
      if (user && user.team !== team) throw forbidden(`The user ${body.user} is not in the team ${team}.`);
      if (user) this.checkRoles(user.roles, 'user');
    }
  }

  /** Whether a token (by its resource) belongs to the team. */
  tokenInTeam(team: string, token: { team?: string | null } | undefined): boolean {
    return token?.team === team;
  }

  private checkRoles(roles: unknown, param: string): void {
    if (!Array.isArray(roles)) return;
    const beyond = roles.filter((r) => !TEAM_GRANTABLE.has(r as string));
    if (beyond.length) throw forbidden(`A team_admin cannot grant the roles ${beyond.join(', ')} (${param}).`);
  }

  private async inTeam(team: string, kind: TenantKind, object: Record<string, unknown>): Promise<boolean> {
    if (kind === 'user') return object.team === team;
    if (kind !== 'budget') return false;
    const subject = object.subject as string;
    switch (object.scope) {
      case 'team':
        return subject === team;
      case 'user':
        return (await this.tenants.get('user', subject))?.team === team;
      case 'key':
        return this.tokenInTeam(team, await this.tokens.get(subject));
      default:
        return false;
    }
  }
}
