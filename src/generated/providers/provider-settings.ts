/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/providers/provider-settings.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * The settings every provider takes under providers.<id> (most take only these).
 */
export interface ProviderSettingsBase {
  /**
   * Replaces the provider's public address; the provider's own paths are appended (as its official SDK does).
   */
  baseUrl?: string;
  /**
   * Extra headers sent to this provider on every request.
   */
  headers?: {
    [k: string]: string;
  };
  /**
   * Most keep-alive connections per upstream origin.
   */
  connections?: number;
  [k: string]: unknown;
}
