import { randomBytes } from 'node:crypto';
import type { ValidateFunction } from 'ajv';
import type { Budget } from '../../../generated/governance/budget.js';
import type { BudgetsConfig } from '../../../generated/governance/budgets-config.js';
import type { TenantsConfig } from '../../../generated/governance/tenants.js';
import { firstProblem, validatorFor } from '../../../kernel/config/schema-validator.js';
import { badRequest, conflict, notFound } from '../../../contract/errors/gateway-error.js';
import { BUDGET_SCOPES } from '../governance-types.js';
import { refuseUnknownTimeZone } from '../budgets/local-time.js';
import type { TenantKind, TenantRow, TenantStore, TenantTx } from './tenant-store.js';

/** An organisation, team, user or budget as the admin API shows it. */
export interface TenantObject {
  object: TenantKind;
  id: string;
  /** file: from the config file (read-only through the API); api: made through the API. */
  source: 'file' | 'api';
  /** Unix seconds; null for file objects. */
  created_at: number | null;
  updated_at: number | null;
  [field: string]: unknown;
}

interface KindRules {
  /** The config key of the file objects, e.g. tenants.organizations. */
  fileKey: string;
  /** The field naming the object this one hangs from, and that object's kind. */
  parent?: { field: 'organization' | 'team'; kind: TenantKind };
  /** Objects that hang from this one: while any exist, it cannot be deleted. */
  child?: { kind: TenantKind; field: 'organization' | 'team'; label: string };
}

const RULES: Record<TenantKind, KindRules> = {
  organization: { fileKey: 'tenants.organizations', child: { kind: 'team', field: 'organization', label: 'teams' } },
  team: { fileKey: 'tenants.teams', parent: { field: 'organization', kind: 'organization' }, child: { kind: 'user', field: 'team', label: 'users' } },
  user: { fileKey: 'tenants.users', parent: { field: 'team', kind: 'team' } },
  budget: { fileKey: 'budgets' },
};

const SCHEMAS: Record<TenantKind, string> = {
  organization: 'requests/admin-organization.schema.json',
  team: 'requests/admin-team.schema.json',
  user: 'requests/admin-user.schema.json',
  budget: 'requests/admin-budget.schema.json',
};

interface FileObject {
  id: string;
  data: Record<string, unknown>;
  /** Where it is set in the config file, e.g. tenants.teams.search. */
  key: string;
}

const nowMs = () => Date.now();

/** An id from the request path as a message shows it: at most 64 characters (a path may carry thousands). */
const shown = (id: string) => (id.length > 64 ? `${id.slice(0, 64)}…` : id);
const seconds = (ms: number) => Math.floor(ms / 1000);

/** The file budgets as the admin API lists them; ids `<scope>:<subject>:<index>` (ApplicableBudget's). */
export function fileBudgets(budgets: BudgetsConfig | undefined): FileObject[] {
  const out: FileObject[] = [];
  for (const scope of BUDGET_SCOPES) {
    for (const [subject, entry] of Object.entries(budgets?.[scope] ?? {})) {
      const list: Budget[] = Array.isArray(entry) ? entry : [entry];
      list.forEach((budget, index) => out.push({ id: `${scope}:${subject}:${index}`, data: { scope, subject, ...budget }, key: `budgets.${scope}.${subject}` }));
    }
  }
  return out;
}

function fileObjects(tenants: TenantsConfig | undefined, budgets: BudgetsConfig | undefined): Record<TenantKind, FileObject[]> {
  const of = (kind: 'organizations' | 'teams' | 'users') =>
    Object.entries(tenants?.[kind] ?? {}).map(([id, data]) => ({ id, data: data as Record<string, unknown>, key: `tenants.${kind}.${id}` }));
  return { organization: of('organizations'), team: of('teams'), user: of('users'), budget: fileBudgets(budgets) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function check(validate: ValidateFunction, value: unknown): void {
  if (validate(value)) return;
  const problem = firstProblem(validate.errors);
  throw badRequest(`${problem?.key || 'body'}: ${problem?.message ?? 'is invalid'}`, problem?.key || 'body');
}

/** A unique-key violation of either store (two creates of one id racing). */
function isDuplicate(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  return code === '23505' || code.startsWith('SQLITE_CONSTRAINT');
}

/**
 * Organisations, teams, users and budgets: those of the config file (`tenants:`, `budgets:`;
 * read-only, source file) and those made through the admin API (in the store, source api), in
 * one listing. Teams name an existing organisation, users an existing team; an organisation
 * with teams, or a team with users, cannot be deleted.
 */
export class TenantService {
  private readonly files: Record<TenantKind, FileObject[]>;
  private readonly validators: Record<TenantKind, ValidateFunction>;
  private readonly budgetFields = validatorFor('governance/budget.schema.json');

  constructor(
    private readonly store: TenantStore,
    tenants: TenantsConfig | undefined,
    budgets: BudgetsConfig | undefined,
    /** Called after every write of a kind (the budget cache listens). */
    private readonly changed: (kind: TenantKind) => void = () => undefined,
  ) {
    this.files = fileObjects(tenants, budgets);
    this.validators = {
      organization: validatorFor(SCHEMAS.organization),
      team: validatorFor(SCHEMAS.team),
      user: validatorFor(SCHEMAS.user),
      budget: validatorFor(SCHEMAS.budget),
    };
  }

  /** API objects newest first, then the config file's in file order. */
  async list(kind: TenantKind): Promise<TenantObject[]> {
    const rows = await this.store.list(kind);
    return [...rows.map((r) => this.fromRow(r)), ...this.files[kind].map((f) => this.fromFile(kind, f))];
  }

  async get(kind: TenantKind, id: string): Promise<TenantObject | undefined> {
    const file = this.fileObject(kind, id);
    if (file) return this.fromFile(kind, file);
    const row = await this.store.get(kind, id);
    return row ? this.fromRow(row) : undefined;
  }

  /** A user's roles and team (file or API user); undefined for an unknown user. */
  async userRoles(user: string): Promise<{ roles: string[]; team?: string } | undefined> {
    const found = await this.get('user', user);
    if (!found) return undefined;
    const roles = Array.isArray(found.roles) ? (found.roles as string[]) : [];
    return typeof found.team === 'string' ? { roles, team: found.team } : { roles };
  }

  async create(kind: TenantKind, body: unknown): Promise<TenantObject> {
    if (!isObject(body)) throw badRequest('The request body must be a JSON object.', 'body');
    const data = this.validate(kind, { ...body });
    const id = kind === 'budget' ? `bud_${randomBytes(12).toString('hex')}` : (data.id as string);
    delete data.id;
    if (this.fileObject(kind, id)) throw conflict(`A ${kind} with id ${id} is already set in the config file (${this.fileObject(kind, id)!.key}).`, 'id');
    const now = nowMs();
    const row: TenantRow = { kind, id, parent: this.parentOf(kind, data), data, createdAt: now, updatedAt: now };
    try {
      await this.store.transaction(async (tx) => {
        await this.checkParent(tx, kind, data);
        if (await tx.get(kind, id)) throw conflict(`A ${kind} with id ${id} already exists.`, 'id');
        await tx.insert(row);
      });
    } catch (err) {
      throw isDuplicate(err) ? conflict(`A ${kind} with id ${id} already exists.`, 'id') : err;
    }
    this.changed(kind);
    return this.fromRow(row);
  }

  /** Replaces the fields sent (null removes one); the object as it was and as it is now. */
  async update(kind: TenantKind, id: string, patch: unknown): Promise<{ before: TenantObject; after: TenantObject }> {
    if (!isObject(patch)) throw badRequest('The request body must be a JSON object.', 'body');
    this.refuseFileObject(kind, id, 'changed');
    if (patch.id !== undefined && patch.id !== id) throw badRequest('id cannot change; create a new object instead.', 'id');
    const result = await this.store.transaction(async (tx) => {
      const row = await tx.get(kind, id, true);
      if (!row) throw notFound(`No ${kind} with id ${shown(id)}.`, 'id');
      const merged: Record<string, unknown> = kind === 'budget' ? { ...row.data } : { id, ...row.data };
      for (const [field, value] of Object.entries(patch)) {
        if (value === null) delete merged[field];
        else merged[field] = value;
      }
      const data = this.validate(kind, merged);
      delete data.id;
      if (RULES[kind].parent && data[RULES[kind].parent!.field] !== row.data[RULES[kind].parent!.field]) await this.checkParent(tx, kind, data);
      const updated: TenantRow = { ...row, parent: this.parentOf(kind, data), data, updatedAt: nowMs() };
      await tx.update(updated);
      return { before: this.fromRow(row), after: this.fromRow(updated) };
    });
    this.changed(kind);
    return result;
  }

  /** Deletes an API object; the object as it was. */
  async remove(kind: TenantKind, id: string): Promise<TenantObject> {
    this.refuseFileObject(kind, id, 'deleted');
    const before = await this.store.transaction(async (tx) => {
      const row = await tx.get(kind, id, true);
      if (!row) throw notFound(`No ${kind} with id ${shown(id)}.`, 'id');
      const child = RULES[kind].child;
      if (child) {
        const held = [...this.files[child.kind].filter((f) => f.data[child.field] === id).map((f) => f.id), ...(await tx.children(child.kind, id))];
        if (held.length > 0) {
          const shown = held.slice(0, 5).join(', ') + (held.length > 5 ? ', ...' : '');
          throw conflict(`The ${kind} ${id} still has ${child.label} (${shown}); delete or move them first.`, 'id');
        }
      }
      await tx.delete(kind, id);
      return this.fromRow(row);
    });
    this.changed(kind);
    return before;
  }

  private fileObject(kind: TenantKind, id: string): FileObject | undefined {
    return this.files[kind].find((f) => f.id === id);
  }

  private refuseFileObject(kind: TenantKind, id: string, verb: string): void {
    const file = this.fileObject(kind, id);
    if (file) throw conflict(`The ${kind} ${id} comes from the gateway's config file (${file.key}) and cannot be ${verb} through the API; change the config file instead.`, 'id');
  }

  /** The body checked against the kind's schema (budgets: scope and subject, then budget.schema.json); a copy. */
  private validate(kind: TenantKind, body: Record<string, unknown>): Record<string, unknown> {
    check(this.validators[kind], body);
    if (kind !== 'budget') return { ...body };
    const { scope, subject, ...budget } = body;
    check(this.budgetFields, budget);
    if (budget.limit_usd === undefined && budget.limit_tokens === undefined) throw badRequest('A budget needs limit_usd or limit_tokens (or both).', 'limit_usd');
    refuseUnknownTimeZone(budget, 'window.timezone');
    return { scope, subject, ...budget };
  }

  private parentOf(kind: TenantKind, data: Record<string, unknown>): string | null {
    if (kind === 'budget') return `${data.scope as string}:${data.subject as string}`;
    const field = RULES[kind].parent?.field;
    return field && typeof data[field] === 'string' ? (data[field] as string) : null;
  }

  /** The organisation a team names, or the team a user names, must exist (400 naming the field). */
  private async checkParent(tx: TenantTx, kind: TenantKind, data: Record<string, unknown>): Promise<void> {
    const parent = RULES[kind].parent;
    if (!parent) return;
    const id = data[parent.field];
    if (typeof id !== 'string') return;
    if (this.fileObject(parent.kind, id)) return;
    // Locked to the end of the transaction: a delete of the parent waits for this write, then sees it.
    if (!(await tx.get(parent.kind, id, true))) throw badRequest(`${parent.field}: no ${parent.kind} with id ${id} exists.`, parent.field);
  }

  private fromRow(row: TenantRow): TenantObject {
    return { object: row.kind, id: row.id, ...row.data, source: 'api', created_at: seconds(row.createdAt), updated_at: seconds(row.updatedAt) };
  }

  private fromFile(kind: TenantKind, file: FileObject): TenantObject {
    return { object: kind, id: file.id, ...file.data, source: 'file', created_at: null, updated_at: null };
  }
}
