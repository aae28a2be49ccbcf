/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/validate.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Checks the request before anything is sent upstream: the JSON body against its schema in schema/requests/, uploads read whole (file parts spooled) and checked, list query parameters, and the spec's semantic rules.
 */
export interface ValidateStageConfig {
  /**
   * Also apply the spec's semantic rules (well-formed but impossible requests, answered 422).
   */
  semantic?: boolean;
}
