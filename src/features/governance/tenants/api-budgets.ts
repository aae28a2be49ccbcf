import type { Budget } from '../../../generated/governance/budget.js';
import { BUDGET_SCOPES, type ApplicableBudget, type BudgetScope } from '../governance-types.js';
import type { TenantStore } from './tenant-store.js';

/** The subjects of one request, by scope (key id, user, team, organisation, customer, model, credential). */
export type BudgetSubjects = Partial<Record<BudgetScope, string | null | undefined>>;

const keyOf = (scope: string, subject: string) => `${scope}\u0000${subject}`;

/** API budgets by scope and subject, as read at one time. */
export type ApiBudgetIndex = ReadonlyMap<string, readonly ApplicableBudget[]>;

/** The budgets of `index` applying to these subjects, in scope order (key, user, team, ...). */
export function pickBudgets(index: ApiBudgetIndex, subjects: BudgetSubjects): ApplicableBudget[] {
  const out: ApplicableBudget[] = [];
  for (const scope of BUDGET_SCOPES) {
    const subject = subjects[scope];
    if (!subject) continue;
    const found = index.get(keyOf(scope, subject));
    if (found) out.push(...found);
  }
  return out;
}

/**
 * Budgets made through /v1/admin/budgets, as the budget engine reads them: indexed by scope and
 * subject (pickBudgets gives a request's), with the row id as the stable id. Read from the store at most once per
 * `ttlMs` (writes on this instance refresh at once; another instance's within the TTL).
 */
export class ApiBudgets {
  private index: Map<string, ApplicableBudget[]> | undefined;
  private loadedAt = 0;
  private loading: Promise<Map<string, ApplicableBudget[]>> | undefined;
  private generation = 0;

  constructor(
    private readonly store: TenantStore,
    private readonly ttlMs = 5000,
  ) {}

  /** Drops the cache (a budget was written). */
  invalidate(): void {
    this.generation++;
    this.index = undefined;
    this.loading = undefined;
  }

  /**
   * The budgets as last read, while within the TTL (undefined: a read is due). A new object after
   * every read or write, so a caller may keep what it worked out from one until it changes.
   */
  fresh(): ApiBudgetIndex | undefined {
    return this.index && Date.now() - this.loadedAt < this.ttlMs ? this.index : undefined;
  }

  /** The budgets, read from the store when the TTL has passed. */
  current(): Promise<ApiBudgetIndex> {
    const fresh = this.fresh();
    return fresh ? Promise.resolve(fresh) : this.load();
  }

  private load(): Promise<Map<string, ApplicableBudget[]>> {
    if (this.loading) return this.loading;
    const generation = this.generation;
    const loading: Promise<Map<string, ApplicableBudget[]>> = this.store
      .list('budget')
      .then((rows) => {
        const index = new Map<string, ApplicableBudget[]>();
        // Oldest first: a subject's budgets keep the order they were made in.
        for (const row of rows.reverse()) {
          const { scope, subject, ...budget } = row.data as unknown as { scope: BudgetScope; subject: string } & Budget;
          const key = keyOf(scope, subject);
          let list = index.get(key);
          if (!list) index.set(key, (list = []));
          list.push({ id: row.id, scope, subject, budget });
        }
        // A write while loading: this read may predate it, so it is not kept.
        if (generation === this.generation) {
          this.index = index;
          this.loadedAt = Date.now();
        }
        return index;
      })
      .finally(() => {
        if (this.loading === loading) this.loading = undefined;
      });
    this.loading = loading;
    return loading;
  }
}
