import type { AdminResourcesStageConfig } from '../../../generated/stages/admin-resources.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import type { GatewayContext } from '../../../kernel/engine/context.js';
import { defineStage } from '../../../kernel/engine/stage.js';
import { badRequest, forbidden, notFound } from '../../../contract/errors/gateway-error.js';
import type { GatewayRouteSpec } from '../../../contract/routes.js';
import { ADMIN, ADMIN_ACCESS, TOKEN_SERVICE } from '../../auth/index.js';
import { AUDIT } from '../audit/audit-services.js';
import type { AuditFilter } from '../audit/audit-log.js';
import { TENANTS } from '../tenants/tenant-services.js';
import type { TenantKind } from '../tenants/tenant-store.js';
import { jsonObjectBody } from './admin-body.js';
import { adminListQuery, pageOf } from './admin-list.js';
import { TeamScope } from './team-scope.js';
import { BODY } from '../../../kernel/engine/request-body.js';
import { IDENTITY, RESPONSE } from '../../../kernel/engine/context.js';

type AdminContext = GatewayContext<GatewayRouteSpec>;

/** An id from the request path as a message shows it: at most 64 characters (a path may carry thousands). */
const shown = (id: string) => (id.length > 64 ? `${id.slice(0, 64)}…` : id);

const KINDS: Record<string, TenantKind> = { organizations: 'organization', teams: 'team', users: 'user', budgets: 'budget' };

/** A time filter of the audit list: Unix seconds or an ISO 8601 date; a 400 naming it otherwise. */
function timeParam(query: URLSearchParams, name: 'from' | 'to'): number | undefined {
  const text = query.get(name);
  if (text === null || text === '') return undefined;
  const value = /^\d{1,12}$/.test(text) ? Number(text) : Date.parse(text) / 1000;
  if (!Number.isFinite(value)) throw badRequest(`${name} must be Unix seconds or an ISO 8601 date.`, name);
  return Math.floor(value);
}

function auditFilter(query: URLSearchParams): AuditFilter {
  const { limit, after } = adminListQuery(query);
  const filter: AuditFilter = { limit };
  if (after !== undefined) filter.after = after;
  const resource = query.get('resource');
  if (resource) filter.resource = resource;
  const actor = query.get('actor');
  if (actor) filter.actor = actor;
  const from = timeParam(query, 'from');
  if (from !== undefined) filter.from = from;
  const to = timeParam(query, 'to');
  if (to !== undefined) filter.to = to;
  return filter;
}

/**
 * The admin API's organisations, teams, users and budgets (contract §8): JSON CRUD over the
 * config file's objects (source file, read-only) and the store's (source api), with the caller's
 * role applied, every write kept in the audit log; and the audit log itself.
 */
export default defineStage<AdminResourcesStageConfig, AdminContext>({
  name: 'admin-resources',
  description: 'Organisations, teams, users and budgets of the admin API (CRUD), and its audit log.',
  schema: schemaDocument('stages/admin-resources.schema.json'),
  requires: [ADMIN, ADMIN_ACCESS],
  once: true,
  reads: [BODY, IDENTITY],
  writes: [RESPONSE],
  terminal: true,
  create(config, services) {
    const tenants = services.require(TENANTS);
    const audit = services.require(AUDIT);
    const scope = new TeamScope(tenants, services.require(TOKEN_SERVICE));
    const limit = config.bodyLimit ?? 65_536;
    const json = (ctx: AdminContext, status: number, body: unknown) => {
      ctx.response = { kind: 'json', status, body };
    };
    return async (ctx) => {
      const access = ctx.get(ADMIN_ACCESS)!;
      const operation = ctx.endpoint.operation;
      if (operation === 'admin.audit.list') {
        if (access.role === 'team_admin') throw forbidden('The audit log is read by the admin and viewer roles only.');
        const page = await audit.list(auditFilter(ctx.query));
        return json(ctx, 200, { object: 'list', ...page });
      }
      const kind = KINDS[ctx.endpoint.path.split('/')[3] ?? ''];
      if (!kind) throw notFound(`The admin API does not serve ${ctx.method} ${ctx.path}.`);
      const id = ctx.params.id;
      switch (operation) {
        case 'admin.list': {
          adminListQuery(ctx.query);
          const all = await tenants.list(kind);
          const visible =
            access.role === 'team_admin' ? (await Promise.all(all.map(async (o) => ((await scope.canRead(access, kind, o)) ? o : undefined)))).filter((o) => o !== undefined) : all;
          // search: a case-insensitive part of the id or name; order=desc: the list reversed.
          const search = ctx.query.get('search')?.trim().toLowerCase();
          if (search !== undefined && search.length > 200) throw badRequest('search must be at most 200 characters.', 'search');
          const order = ctx.query.get('order') ?? 'asc';
          if (order !== 'asc' && order !== 'desc') throw badRequest('order must be asc or desc.', 'order');
          const found = search ? visible.filter((o) => [o.id, (o as { name?: unknown }).name].some((v) => typeof v === 'string' && v.toLowerCase().includes(search))) : visible;
          return json(ctx, 200, pageOf(order === 'desc' ? [...found].reverse() : found, ctx.query));
        }
        case 'admin.retrieve': {
          const found = await tenants.get(kind, id!);
          if (!found) throw notFound(`No ${kind} with id ${shown(id)}.`, 'id');
          if (!(await scope.canRead(access, kind, found))) throw forbidden(`This ${kind} is outside what your role may read.`);
          return json(ctx, 200, found);
        }
        case 'admin.create': {
          scope.refuseViewerWrite(access);
          const body = await jsonObjectBody(ctx, limit);
          if (access.role === 'team_admin' && kind === 'user') body.team ??= scope.teamOf(access);
          await scope.checkWrite(access, kind, body);
          const created = await tenants.create(kind, body);
          await audit.recordAudit(ctx, { action: `${kind}.create`, resource: kind, id: created.id, after: created });
          return json(ctx, 201, created);
        }
        case 'admin.update': {
          scope.refuseViewerWrite(access);
          const body = await jsonObjectBody(ctx, limit);
          const current = await tenants.get(kind, id!);
          if (!current) throw notFound(`No ${kind} with id ${shown(id)}.`, 'id');
          await scope.checkWrite(access, kind, current);
          const prospective: Record<string, unknown> = { ...current };
          for (const [field, value] of Object.entries(body))
            if (value === null) delete prospective[field];
            else prospective[field] = value;
          await scope.checkWrite(access, kind, prospective);
          scope.checkTeamBudgetChange(access, kind, current, prospective);
          const { before, after } = await tenants.update(kind, id!, body);
          await audit.recordAudit(ctx, { action: `${kind}.update`, resource: kind, id: id!, before, after });
          return json(ctx, 200, after);
        }
        case 'admin.delete': {
          scope.refuseViewerWrite(access);
          const current = await tenants.get(kind, id!);
          if (!current) throw notFound(`No ${kind} with id ${shown(id)}.`, 'id');
          await scope.checkWrite(access, kind, current);
          scope.checkTeamBudgetChange(access, kind, current, undefined);
          const before = await tenants.remove(kind, id!);
          await audit.recordAudit(ctx, { action: `${kind}.delete`, resource: kind, id: id!, before });
          return json(ctx, 200, { object: kind, id, deleted: true });
        }
        default:
          throw notFound(`The admin API does not serve ${ctx.method} ${ctx.path}.`);
      }
    };
  },
});
