/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/guardrail.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Runs guardrails (guardrails.<id>) on the request before it is sent and on the answer: these lists on every request of the pipeline, before the target's own input_guardrails / output_guardrails.
 */
export interface GuardrailStageConfig {
  /**
   * Guardrail ids checked on every request.
   */
  input?: string[];
  /**
   * Guardrail ids checked on every answer.
   */
  output?: string[];
}
