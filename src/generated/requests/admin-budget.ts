/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/admin-budget.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * POST /v1/admin/budgets: where the budget applies (scope and subject) and the Budget's own fields (budget.schema.json). PATCH takes the same fields; null removes an optional one.
 */
export interface AdminBudgetRequest {
  scope: 'key' | 'user' | 'team' | 'organization' | 'customer' | 'model' | 'credential';
  /**
   * The key id, user, team, organisation, customer, catalogue model or credential name.
   */
  subject: string;
  [k: string]: unknown;
}
