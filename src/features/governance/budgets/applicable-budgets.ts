import type { Budget } from '../../../generated/governance/budget.js';
import type { BudgetsConfig } from '../../../generated/governance/budgets-config.js';
import { BUDGET_SCOPES, type ApplicableBudget, type BudgetScope, type GatewayKey } from '../governance-types.js';

/** Config budgets by scope, then subject: read once from `budgets:` (ids `<scope>:<subject>:<index>`). */
export type ConfigBudgetIndex = ReadonlyMap<BudgetScope, ReadonlyMap<string, readonly ApplicableBudget[]>>;

export function indexConfigBudgets(config: BudgetsConfig | undefined): ConfigBudgetIndex {
  const index = new Map<BudgetScope, Map<string, ApplicableBudget[]>>();
  for (const scope of BUDGET_SCOPES) {
    const bySubject = config?.[scope];
    if (!bySubject) continue;
    const subjects = new Map<string, ApplicableBudget[]>();
    for (const [subject, value] of Object.entries(bySubject)) {
      const list: Budget[] = Array.isArray(value) ? value : [value as Budget];
      subjects.set(
        subject,
        list.map((budget, i) => ({ id: `${scope}:${subject}:${i}`, scope, subject, budget })),
      );
    }
    index.set(scope, subjects);
  }
  return index;
}

/** What a request is: its key, the catalogue model it asked for, and the held credentials it may spend. */
export interface BudgetSubjects {
  key: GatewayKey;
  model?: string;
  credentials?: readonly string[];
}

/**
 * Every budget that applies to a request: the config's budgets whose scope and subject match
 * (key id, user, team, organisation, customer, model, credential), the key's own budgets (scope
 * key, ids `key:<key id>:own<index>`) and `extra` ones (budgets made through the admin API, from
 * their provider). A budget id appears once.
 */
export function applicableBudgets(index: ConfigBudgetIndex, request: BudgetSubjects, extra: readonly ApplicableBudget[] = []): ApplicableBudget[] {
  const { key } = request;
  const out: ApplicableBudget[] = [];
  const seen = new Set<string>();
  const add = (list: readonly ApplicableBudget[] | undefined) => {
    if (!list) return;
    for (const b of list) {
      if (seen.has(b.id)) continue;
      seen.add(b.id);
      out.push(b);
    }
  };
  const subjects: Record<BudgetScope, readonly (string | undefined)[]> = {
    key: [key.id],
    user: [key.user],
    team: [key.team],
    organization: [key.organization],
    customer: [key.customer],
    model: [request.model],
    credential: request.credentials ?? [],
  };
  for (const scope of BUDGET_SCOPES) {
    const bySubject = index.get(scope);
    if (bySubject) for (const subject of subjects[scope]) if (subject !== undefined) add(bySubject.get(subject));
    if (scope === 'key' && key.budgets?.length) add(key.budgets.map((budget, i) => ({ id: `key:${key.id}:own${i}`, scope: 'key', subject: key.id, budget })));
  }
  add(extra);
  return out;
}
