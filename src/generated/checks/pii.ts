/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/checks/pii.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Fails when the text holds personal data; redact masks each find as [REDACTED_<KIND>].
 */
export interface PiiCheck {
  /**
   * The check kind.
   */
  type: 'pii';
  /**
   * Which kinds to detect (default all).
   */
  categories?: ('email' | 'phone' | 'ssn' | 'credit_card' | 'ip_address' | 'iban')[];
}
