/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/checks/wordCount.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Counts the words of the text; fails outside min..max.
 */
export interface WordCountCheck {
  /**
   * The check kind.
   */
  type: 'wordCount';
  /**
   * The fewest words allowed.
   */
  min?: number;
  /**
   * The most words allowed.
   */
  max?: number;
}
