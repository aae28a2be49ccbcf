/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/checks/characterCount.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Counts the characters of the text; fails outside min..max.
 */
export interface CharacterCountCheck {
  /**
   * The check kind.
   */
  type: 'characterCount';
  /**
   * The fewest characters allowed.
   */
  min?: number;
  /**
   * The most characters allowed.
   */
  max?: number;
}
