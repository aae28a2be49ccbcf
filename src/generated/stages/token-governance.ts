/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/token-governance.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Wraps the token operations: applies the caller's admin role (viewer reads only; team_admin issues, lists and changes its own team's keys) and keeps every token write in the audit log (never the token value). Goes between authenticate (credential admin) and token-operations.
 */
export interface TokenGovernanceStageConfig {
  /**
   * Largest request body accepted, in bytes (a team_admin's token request is read here).
   */
  bodyLimit?: number;
}
