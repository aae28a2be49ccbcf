import { randomBytes } from 'node:crypto';
import type { GatewayContext } from '../../../kernel/engine/context.js';
import type { Migration, SqlStore } from '../../../kernel/store/sql-store.js';
import { ADMIN_ACCESS } from '../../auth/index.js';
import { auditSafe } from './audit-redact.js';

/** One admin write, as a service reports it. */
export interface AuditEntry {
  /** What was done, e.g. "token.create", "team.update", "credential.rotate". */
  action: string;
  /** The kind of object written: token, organization, team, user, budget, credential... */
  resource: string;
  /** The object's id. */
  id: string;
  /** The object before the write (none for a create); secrets are removed before it is kept. */
  before?: unknown;
  /** The object after the write (none for a delete). */
  after?: unknown;
}

/** An audit record as GET /v1/admin/audit shows it. */
export interface AuditRecord {
  object: 'audit.entry';
  id: string;
  /** Unix seconds. */
  created_at: number;
  actor: { kind: string; id: string; user: string | null; role: string | null };
  action: string;
  resource: string;
  resource_id: string;
  request_id: string | null;
  before: unknown;
  after: unknown;
}

export interface AuditFilter {
  resource?: string;
  /** The actor's credential id or user. */
  actor?: string;
  /** Unix seconds, inclusive. */
  from?: number;
  to?: number;
  /** An entry id: entries older than it. */
  after?: string;
  limit: number;
}

export const AUDIT_MIGRATIONS: Migration[] = [
  {
    id: 'audit-001-create',
    statements: [
      `CREATE TABLE gateway_audit (
        id TEXT PRIMARY KEY,
        at BIGINT NOT NULL,
        actor_kind TEXT NOT NULL,
        actor_id TEXT NOT NULL,
        actor_user TEXT,
        actor_role TEXT,
        action TEXT NOT NULL,
        resource TEXT NOT NULL,
        resource_id TEXT NOT NULL,
        request_id TEXT,
        before_json TEXT,
        after_json TEXT
      )`,
      'CREATE INDEX gateway_audit_resource ON gateway_audit (resource, id)',
    ],
  },
];

interface Row {
  id: string;
  at: number | string;
  actor_kind: string;
  actor_id: string;
  actor_user: string | null;
  actor_role: string | null;
  action: string;
  resource: string;
  resource_id: string;
  request_id: string | null;
  before_json: string | null;
  after_json: string | null;
}

const COLUMNS = 'id, at, actor_kind, actor_id, actor_user, actor_role, action, resource, resource_id, request_id, before_json, after_json';

let lastMs = 0;
let sequence = 0;

/** Ids that sort by time: the millisecond, a counter within it, and randomness (ids from several instances never collide). */
function newAuditId(ms: number): string {
  sequence = ms === lastMs ? sequence + 1 : 0;
  lastMs = ms;
  return `aud_${ms.toString().padStart(14, '0')}${sequence.toString().padStart(4, '0')}${randomBytes(6).toString('hex')}`;
}

function fromRow(row: Row): AuditRecord {
  return {
    object: 'audit.entry',
    id: row.id,
    created_at: Math.floor(Number(row.at) / 1000),
    actor: { kind: row.actor_kind, id: row.actor_id, user: row.actor_user, role: row.actor_role },
    action: row.action,
    resource: row.resource,
    resource_id: row.resource_id,
    request_id: row.request_id,
    before: row.before_json === null ? null : JSON.parse(row.before_json),
    after: row.after_json === null ? null : JSON.parse(row.after_json),
  };
}

/**
 * The audit log of admin writes (who, when, what, before and after), kept in the store with every
 * secret removed. Services that write through the admin API call `recordAudit` after each write.
 */
export class AuditLog {
  constructor(private readonly store: SqlStore) {}

  /** Keeps one write made by the caller of `ctx` (its identity and admin role). */
  async recordAudit(ctx: GatewayContext, entry: AuditEntry): Promise<void> {
    const identity = ctx.identity;
    const actor = { kind: identity?.kind ?? 'anonymous', id: identity?.id ?? 'anonymous', user: identity?.user ?? null, role: ctx.get(ADMIN_ACCESS)?.role ?? null };
    await this.write(actor, entry, ctx.id, ctx.secrets);
  }

  /**
   * Keeps one change made outside any request of the admin API (a signal to the process: SIGHUP
   * reloading the config file); `actor` says what made it, e.g. `{ kind: 'signal', id: 'SIGHUP' }`.
   */
  async recordEvent(actor: { kind: string; id: string }, entry: AuditEntry): Promise<void> {
    await this.write({ ...actor, user: null, role: null }, entry, null, []);
  }

  private async write(actor: AuditRecord['actor'], entry: AuditEntry, requestId: string | null, secrets: readonly string[]): Promise<void> {
    const at = Date.now();
    const safe = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(auditSafe(v, secrets)));
    await this.store.execute(`INSERT INTO gateway_audit (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
      newAuditId(at),
      at,
      actor.kind,
      actor.id,
      actor.user,
      actor.role,
      entry.action,
      entry.resource,
      entry.id,
      requestId,
      safe(entry.before),
      safe(entry.after),
    ]);
  }

  /** Entries newest first, filtered; `has_more` when more match past `limit`. */
  async list(filter: AuditFilter): Promise<{ data: AuditRecord[]; has_more: boolean }> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (clause: string, ...values: unknown[]) => {
      where.push(clause);
      params.push(...values);
    };
    if (filter.resource !== undefined) add('resource = ?', filter.resource);
    if (filter.actor !== undefined) add('(actor_id = ? OR actor_user = ?)', filter.actor, filter.actor);
    if (filter.from !== undefined) add('at >= ?', filter.from * 1000);
    if (filter.to !== undefined) add('at < ?', (filter.to + 1) * 1000);
    if (filter.after !== undefined) add('id < ?', filter.after);
    const sql = `SELECT ${COLUMNS} FROM gateway_audit${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ${filter.limit + 1}`;
    const rows = await this.store.query<Row>(sql, params);
    return { data: rows.slice(0, filter.limit).map(fromRow), has_more: rows.length > filter.limit };
  }
}
