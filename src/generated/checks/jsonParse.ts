/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/checks/jsonParse.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Fails unless the text (or its first ```json block) is valid JSON.
 */
export interface JsonParseCheck {
  /**
   * The check kind.
   */
  type: 'jsonParse';
}
