/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/checks/regex.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Fails when the pattern matches the text (or, with not: true, when it does not); redact masks each match.
 */
export interface RegexCheck {
  /**
   * The check kind.
   */
  type: 'regex';
  /**
   * The regular expression (JavaScript syntax).
   */
  pattern?: string;
  /**
   * Regular expression flags, e.g. i (g is always added).
   */
  flags?: string;
  /**
   * Invert: the check fails when the pattern or words do NOT match.
   */
  not?: boolean;
}
