/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/admin-team.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * POST /v1/admin/teams (PATCH takes the same fields but id; null removes an optional one).
 */
export interface AdminTeamRequest {
  /**
   * The object's id (what keys and budgets name it by); unique among file and API objects of its kind.
   */
  id: string;
  name?: string;
  organization?: string;
  /**
   * Catalogue models (names or globs) the team's keys may use at most.
   *
   * @maxItems 256
   */
  models?: string[];
  metadata?: {
    [k: string]: unknown;
  };
}
