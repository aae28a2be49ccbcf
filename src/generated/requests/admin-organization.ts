/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/admin-organization.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * POST /v1/admin/organizations (PATCH takes the same fields but id; null removes an optional one).
 */
export interface AdminOrganizationRequest {
  /**
   * The object's id (what keys and budgets name it by); unique among file and API objects of its kind.
   */
  id: string;
  name?: string;
  metadata?: {
    [k: string]: unknown;
  };
}
