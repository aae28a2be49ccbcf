/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/governance/credential.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * A provider credential the gateway holds (credentials.<name>): the provider and the fields a routing target would carry for it (api_key, or the provider's settings such as aws_access_key_id; each provider declares which). Used only for requests with a gateway key allowed to reach it, and only toward the provider's own address or the operator's configured base_url.
 */
export interface HeldCredential {
  provider: string;
  api_key?: string;
  description?: string;
  [k: string]: unknown;
}
