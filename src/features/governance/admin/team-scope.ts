import { forbidden } from '../../../contract/errors/gateway-error.js';
import type { Identity } from '../../../kernel/engine/context.js';
import { matchesWildcard } from '../../../kernel/text/wildcard.js';
import { ALL_SCOPES, canRead, canWrite, type AdminAccess, type TokenResource } from '../../auth/index.js';
import type { TenantKind } from '../tenants/tenant-store.js';
import type { TenantService } from '../tenants/tenant-service.js';
import { keyMayUseModel } from '../model-access.js';

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

  /**
   * A key a team_admin issues: its team (set when absent), in the team's organisation, roles it may
   * grant, a user of its team, models its team may use, and no tool-server permission or scope
   * beyond those of the team_admin's own credential (`granter`).
   */
  async checkNewKey(access: AdminAccess, body: Record<string, unknown>, granter?: Identity): Promise<void> {
    const team = this.teamOf(access);
    body.team ??= team;
    if (body.team !== team) throw forbidden(`A team_admin issues keys of its own team (${team}) only.`);
    this.checkRoles(body.roles, 'roles');
    if (typeof body.user === 'string') {
      const user = await this.tenants.get('user', body.user);
      if (user && user.team !== team) throw forbidden(`The user ${body.user} is not in the team ${team}.`);
      if (user) this.checkRoles(user.roles, 'user');
    }
    const found = await this.tenants.get('team', team);
    const organization = typeof found?.organization === 'string' ? found.organization : undefined;
    // The organisation decides whose budgets and ledger rows the key's requests count on: the team's, never another.
    if (body.organization !== undefined && body.organization !== organization) {
      throw forbidden(`A team_admin issues keys in its team's organization (${organization ?? 'none'}) only (organization).`);
    }
    await this.checkKeyModels(access, body.models);
    if (granter) {
      const permissions = isObject(body.permissions) ? body.permissions : isObject(body.mcp) ? body.mcp : undefined;
      beyondGrant(granter.permissions?.servers, permissions ? permissions.servers : undefined, 'servers');
      beyondGrant(granter.permissions?.tools, permissions ? permissions.tools : undefined, 'tools');
      if (Array.isArray(granter.scopes)) {
        // mcp:write reads too: a team_admin whose key writes may give either scope.
        const held = granter.scopes;
        const given: unknown[] = Array.isArray(body.scopes) ? body.scopes : [...ALL_SCOPES];
        const extra = given.filter((s) => (s === 'mcp:write' ? !canWrite(held) : s === 'mcp:read' ? !canRead(held) : typeof s === 'string' && !held.includes(s)));
        if (extra.length) throw forbidden(`A team_admin cannot give a key scopes its own key does not hold (${extra.join(', ')}) (scopes).`);
      }
    }
  }

  /**
   * The models of a key a team_admin issues or edits: only models its team may use
   * (`teams.<team>.models`, file or API; none: every model). A glob of the key must itself be
   * one the team's patterns match (so every name it matches is one of the team's too).
   */
  async checkKeyModels(access: AdminAccess, models: unknown): Promise<void> {
    if (!Array.isArray(models)) return;
    const team = this.teamOf(access);
    const found = await this.tenants.get('team', team);
    const allowed = Array.isArray(found?.models) ? (found.models as unknown[]).filter((m): m is string => typeof m === 'string') : undefined;
    if (!allowed) return;
    const beyond = models.filter((m) => typeof m === 'string' && !keyMayUseModel(allowed, m));
    if (beyond.length) throw forbidden(`The team ${team} may not use the models ${beyond.slice(0, 5).join(', ')} (models: its team's are ${allowed.join(', ') || 'none'}).`);
  }

  /**
   * A team_admin's change to a budget of its team's own scope (`team` on its team): the team's
   * cap, which an admin may have set. It may add such budgets and tighten them (lower a limit, add
   * one, block instead of audit, change its name or alerts), never loosen one (raise or remove a
   * limit, change its window, scope or subject, audit instead of block) or delete it: only an
   * admin may let its team spend more. `after` undefined: a delete.
   */
  checkTeamBudgetChange(access: AdminAccess, kind: TenantKind, before: Record<string, unknown>, after: Record<string, unknown> | undefined): void {
    if (access.role !== 'team_admin' || kind !== 'budget' || before.scope !== 'team') return;
    const why = (what: string) =>
      forbidden(`A team_admin may add and tighten its team's budgets but not ${what}: the team's budget (${String(before.id)}) caps what the whole team spends; ask an admin.`);
    if (!after) throw why('delete one');
    if (after.scope !== before.scope || after.subject !== before.subject) throw why('move one to another scope or subject');
    if (canonical(after.window) !== canonical(before.window)) throw why('change its window');
    if ((before.action ?? 'block') === 'block' && (after.action ?? 'block') !== 'block') throw why('make it audit only');
    for (const limit of ['limit_usd', 'limit_tokens'] as const) {
      if (typeof before[limit] !== 'number') continue;
      if (after[limit] === undefined || after[limit] === null) throw why(`remove its ${limit}`);
      // (a value of another type is the schema's 400 to give)
      if (typeof after[limit] === 'number' && after[limit] > before[limit]) throw why(`raise its ${limit}`);
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

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A JSON value with its object keys sorted (undefined and {} alike): two windows compared as values. */
function canonical(value: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : isObject(v)
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sort(v[k])]),
          )
        : v;
  return JSON.stringify(sort(value ?? {}));
}

/**
 * Refuses (403) tool-server patterns a key would get beyond those its issuer holds (`held`
 * undefined: every server or tool, no bound). `given` undefined is every one; each pattern given
 * must be one a held pattern matches.
 */
function beyondGrant(held: readonly string[] | undefined, given: unknown, field: 'servers' | 'tools'): void {
  if (held === undefined) return;
  if (given === undefined)
    throw forbidden(
      `A team_admin whose own key reaches only the tool-server ${field} ${held.join(', ') || '(none)'} cannot issue a key that reaches every one (permissions.${field}).`,
    );
  if (!Array.isArray(given)) return;
  const beyond = given.filter((p) => typeof p === 'string' && !held.some((h) => matchesWildcard(h, p)));
  if (beyond.length) throw forbidden(`A team_admin cannot give a key tool-server ${field} its own key does not reach (${beyond.slice(0, 5).join(', ')}) (permissions.${field}).`);
}
