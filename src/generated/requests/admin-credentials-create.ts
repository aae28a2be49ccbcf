/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/admin-credentials-create.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * POST /v1/admin/credentials (admin): a provider credential the gateway holds, stored encrypted (AES-256-GCM under secrets.key). The provider's fields beside `provider` are those a routing target would carry for it (api_key, or its settings such as aws_access_key_id).
 */
export interface AdminCredentialCreateRequest {
  /**
   * The name targets use (credential: <name>).
   */
  name: string;
  provider: string;
  description?: string;
  [k: string]: unknown;
}
