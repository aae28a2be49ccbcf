/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/providers/bedrock.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * providers.bedrock: Amazon Bedrock (requests signed with SigV4 from the aws_* fields).
 */
export interface BedrockProviderSettings {
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
  /**
   * Region used when a request names none (default us-east-1).
   */
  region?: string;
  [k: string]: unknown;
}
