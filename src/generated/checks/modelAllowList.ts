/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/checks/modelAllowList.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Fails when the request names a model outside the list.
 */
export interface ModelAllowListCheck {
  /**
   * The check kind.
   */
  type: 'modelAllowList';
  /**
   * Allowed model names or glob patterns (* and ?).
   */
  models?: string[];
}
