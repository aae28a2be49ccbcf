/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/rate-limit.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Applies the gateway rate limits (rateLimits): counts the request in every rule that covers it, sets X-RateLimit-* headers, refuses past a limit with 429 and Retry-After, and charges token budgets from the answer.
 */
export interface RateLimitStageConfig {
  /**
   * Whether rules without `routes` count the requests of this pipeline. Such rules cover the provider routes: true in the shipped provider pipelines, false in mcp.yaml (rules then count /mcp only when their routes name it).
   */
  defaultRules?: boolean;
  /**
   * What one hit is: every HTTP request (`http-requests`, the provider pipelines), or only an MCP POST that carries at least one JSON-RPC request (`json-rpc-requests`, mcp.yaml): notifications, answers to the server's own requests (elicitation, sampling, roots), GET streams and DELETE are never counted nor refused.
   */
  count?: 'http-requests' | 'json-rpc-requests';
}
