/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/checks/jsonSchema.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Fails unless the text, parsed as JSON, satisfies the schema.
 */
export interface JsonSchemaCheck {
  /**
   * The check kind.
   */
  type: 'jsonSchema';
  /**
   * The JSON Schema the text (parsed as JSON) must satisfy.
   */
  schema?: {
    [k: string]: unknown;
  };
}
