import { keyMayUseModel } from '../model-access.js';
import type { UsageReportStageConfig } from '../../../generated/stages/usage-report.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { type GatewayContext, IDENTITY, RESPONSE } from '../../../kernel/engine/context.js';
import { CALLER, QUIET } from '../../../kernel/engine/report.js';
import { defineStage } from '../../../kernel/engine/stage.js';
import { getStore } from '../../../kernel/store/store-capability.js';
import { badRequest, forbidden, unauthorized } from '../../../contract/errors/gateway-error.js';
import type { GatewayRouteSpec } from '../../../contract/routes.js';
import { checkAdminOrKey, ADMIN_SESSIONS, CONFIG_KEYS, TOKEN_SERVICE, USER_ROLES, requireGatewayKey } from '../../auth/index.js';
import { usdFromMicros } from '../prices/money.js';
import { METER_DEPS } from './metering-services.js';
import { GATEWAY_KEY } from '../governance-slots.js';
import { getRecentRequest, listRecentRequests, streamFilters, streamRecentRequests } from './recent-requests.js';
import { GROUP_COLUMNS, usageCsv, usageReport, type GroupBy, type Interval, type UsageQuery } from './usage-report.js';

type Ctx = GatewayContext<GatewayRouteSpec>;

const DAY = 86_400_000;

/** A time bound: Unix seconds, Unix milliseconds past 10^12, or an ISO 8601 date. */
function parseTime(value: string, param: string): number {
  if (/^\d{1,16}$/.test(value)) {
    const n = Number(value);
    return n >= 1e12 ? n : n * 1000;
  }
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw badRequest(`${param} must be an ISO 8601 date or Unix seconds: ${value.slice(0, 64)}`, param);
  return t;
}

function reportQuery(ctx: Ctx, maxRangeDays: number): { query: UsageQuery; format: 'json' | 'csv' } {
  const q = ctx.query;
  for (const name of q.keys()) {
    if (!['group_by', 'from', 'to', 'interval', 'format'].includes(name)) throw badRequest(`Unknown query parameter ${name.slice(0, 64)}.`, name.slice(0, 64));
  }
  const groupBy = q.get('group_by') ?? undefined;
  if (groupBy !== undefined && !(groupBy in GROUP_COLUMNS)) throw badRequest(`group_by must be one of ${Object.keys(GROUP_COLUMNS).join(', ')}.`, 'group_by');
  const interval = q.get('interval') ?? undefined;
  if (interval !== undefined && interval !== 'hour' && interval !== 'day') throw badRequest('interval must be hour or day.', 'interval');
  const format = q.get('format') ?? 'json';
  if (format !== 'json' && format !== 'csv') throw badRequest('format must be json or csv.', 'format');
  const to = q.get('to') ? parseTime(q.get('to')!, 'to') : Date.now();
  const from = q.get('from') ? parseTime(q.get('from')!, 'from') : to - 30 * DAY;
  if (from >= to) throw badRequest('from must be before to.', 'from');
  if (to - from > maxRangeDays * DAY) throw badRequest(`The range from..to may cover at most ${maxRangeDays} days.`, 'from');
  const query: UsageQuery = { from, to };
  if (groupBy) query.groupBy = groupBy as GroupBy;
  if (interval) query.interval = interval as Interval;
  return { query, format };
}

function budgetWindow(budget: { window?: { period?: string; kind?: string; timezone?: string } }) {
  return { period: budget.window?.period ?? 'month', kind: budget.window?.kind ?? 'calendar', timezone: budget.window?.timezone ?? 'UTC' };
}

/**
 * GET /v1/admin/usage (admin token, the admin or viewer role, or a team_admin for its own team) and GET /v1/me (a gateway key). The report is one SQL
 * statement over the usage ledger (see usage-report.ts); /v1/me reads the key's budgets' spend
 * from the budget ledger.
 */
export default defineStage<UsageReportStageConfig, Ctx>({
  name: 'usage-report',
  description: 'GET /v1/admin/usage (sums of the usage ledger, JSON or CSV) and GET /v1/me (a key’s limits, budgets, spend and models).',
  schema: schemaDocument('stages/usage-report.schema.json'),
  once: true,
  writes: [CALLER, IDENTITY, GATEWAY_KEY, QUIET, RESPONSE],
  terminal: true,
  create(config, services) {
    const store = getStore(services);
    const deps = services.require(METER_DEPS);
    const tokens = services.require(TOKEN_SERVICE);
    const keys = services.get(CONFIG_KEYS);
    const sessions = services.get(ADMIN_SESSIONS);
    const userRoles = services.get(USER_ROLES);
    /** The recent requests read the whole gateway's traffic: the admin token, or an admin session or key with a role that reads everything. */
    const readsEverything = (ctx: Ctx) => checkAdminOrKey(ctx.req, services.config, ['admin', 'viewer'], tokens, keys, userRoles, sessions);
    const maxRangeDays = config.maxRangeDays ?? 400;
    const catalogue = Object.keys((services.config as { models?: Record<string, unknown> }).models ?? {});
    const report = async (ctx: Ctx) => {
      // A team_admin reads its own team's usage: the report is limited to that team.
      const { access } = await checkAdminOrKey(ctx.req, services.config, ['admin', 'viewer', 'team_admin'], tokens, keys, userRoles, sessions);
      if (access.role === 'team_admin' && access.team === undefined) throw forbidden('This team_admin key belongs to no team: it has no usage to read.');
      ctx.set(CALLER, true);
      const { query, format } = reportQuery(ctx, maxRangeDays);
      if (access.role === 'team_admin') query.team = access.team;
      const lines = await usageReport(store, query, usdFromMicros);
      const window = { from: new Date(query.from).toISOString(), to: new Date(query.to).toISOString() };
      if (format === 'csv') {
        ctx.response = { kind: 'binary', status: 200, contentType: 'text/csv; charset=utf-8', body: Buffer.from(usageCsv(lines, query), 'utf8') };
        return;
      }
      const scope = query.team !== undefined ? { team: query.team } : {};
      ctx.response = {
        kind: 'json',
        status: 200,
        body: { object: 'usage_report', ...window, ...scope, group_by: query.groupBy ?? null, interval: query.interval ?? null, data: lines },
      };
    };
    const me = async (ctx: Ctx) => {
      // the key itself (its own budgets, limits and models), as provider routes see it
      await requireGatewayKey(ctx, services.config, tokens, keys);
      ctx.set(CALLER, true);
      const key = deps.inputs.keyOf(ctx);
      if (!key) throw unauthorized('This credential is not a gateway key.');
      const budgets = await deps.inputs.budgetsFor(ctx, key);
      const spent = budgets.length && deps.inputs.budgetLedger ? await deps.inputs.budgetLedger.spent(budgets) : new Map();
      const matches = (name: string) => keyMayUseModel(key.models, name);
      ctx.response = {
        kind: 'json',
        status: 200,
        body: {
          object: 'gateway_key',
          id: key.id,
          user: key.user,
          team: key.team ?? null,
          organization: key.organization ?? null,
          limits: key.limits ?? {},
          budgets: budgets.map((b) => {
            const s = spent.get(b.id);
            return {
              id: b.id,
              scope: b.scope,
              subject: b.subject,
              name: b.budget.name ?? null,
              limit_usd: b.budget.limit_usd ?? null,
              limit_tokens: b.budget.limit_tokens ?? null,
              window: budgetWindow(b.budget),
              action: b.budget.action ?? 'block',
              spent_usd: s ? usdFromMicros(s.micros) : null,
              spent_tokens: s?.tokens ?? null,
              remaining_usd: s && b.budget.limit_usd !== undefined ? usdFromMicros(Math.max(0, Math.round(b.budget.limit_usd * 1e6) - s.micros)) : null,
              resets_at: s?.resetAt ?? null,
            };
          }),
          models: catalogue.filter(matches),
        },
      };
    };
    const requests = async (ctx: Ctx) => {
      await readsEverything(ctx);
      ctx.set(CALLER, true);
      if (ctx.endpoint.operation === 'admin.requests.list') {
        ctx.response = { kind: 'json', status: 200, body: await listRecentRequests(store, ctx.query) };
        return;
      }
      if (ctx.endpoint.operation === 'admin.requests.retrieve') {
        ctx.response = { kind: 'json', status: 200, headers: { 'cache-control': 'no-store' }, body: await getRecentRequest(store, ctx.params.id ?? '') };
        return;
      }
      const filters = streamFilters(ctx.query);
      ctx.set(QUIET, true);
      await streamRecentRequests(store, ctx.req, ctx.claimResponse(), filters);
    };
    return (ctx) => {
      switch (ctx.endpoint.operation) {
        case 'me':
          return me(ctx);
        case 'admin.requests.list':
        case 'admin.requests.retrieve':
        case 'admin.requests.stream':
          return requests(ctx);
        default:
          return report(ctx);
      }
    };
  },
});
