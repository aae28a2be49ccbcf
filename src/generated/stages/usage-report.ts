/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/usage-report.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * GET /v1/admin/usage (admin token): sums of the usage ledger grouped by key, user, team, organization, customer, model or provider, per hour or day, as JSON or CSV; GET /v1/me (a gateway key): the key's own limits, budgets with spend and reset, and the models it may use.
 */
export interface UsageReportStageConfig {
  /**
   * Longest from..to range one report may cover, in days.
   */
  maxRangeDays?: number;
}
