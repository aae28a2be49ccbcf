/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/checks/contains.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Looks for words or phrases (whole words); passes when any, all or none of them are present, by operator.
 */
export interface ContainsCheck {
  /**
   * The check kind.
   */
  type: 'contains';
  /**
   * Words or phrases.
   */
  words?: string[];
  /**
   * any, all or none of the words must be present for the check to pass (default any; use none for a block-list).
   */
  operator?: 'any' | 'all' | 'none';
  /**
   * Match case (default false).
   */
  caseSensitive?: boolean;
  /**
   * Invert: the check fails when the pattern or words do NOT match.
   */
  not?: boolean;
}
