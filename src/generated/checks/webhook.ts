/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/checks/webhook.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Asks an HTTP service for a verdict: POST {guardrail, phase, text, model, request_id}; it answers {"verdict": true|false, "reason"?}. No answer in time, an error status or another shape fails the check.
 */
export interface WebhookCheck {
  /**
   * The check kind.
   */
  type: 'webhook';
  /**
   * The address to ask (http or https).
   */
  url?: string;
  /**
   * Headers sent with each call.
   */
  headers?: {
    [k: string]: string;
  };
  /**
   * ms to wait for the verdict (default 5000).
   */
  timeout?: number;
}
