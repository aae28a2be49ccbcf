/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/routing.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * A routing config: sent in the x-gateway-config header (JSON) or defined under configs.<name> in the gateway config. The root is a target whose children are tried according to its strategy.
 */
export type RoutingConfig = RoutingTarget;
/**
 * Statuses that are retried; default 429, 500, 502, 503, 504. Network errors and timeouts are always retried.
 */
export type StatusCodes = number[];
/**
 * Statuses on which the next target is tried (fallback: default 429 and every 5xx; loadbalance: only when given).
 */
export type StatusCodes1 = number[];

export interface RoutingTarget {
  /**
   * Name used by conditional routing.
   */
  name?: string;
  /**
   * Provider identifier, e.g. openai, anthropic.
   */
  provider?: string;
  /**
   * The provider key for this target.
   */
  api_key?: string;
  /**
   * The name of a credential the gateway holds (credentials.<name> or /v1/admin/credentials), used instead of api_key: only for requests with a gateway key allowed to use it, never toward an address a caller chose.
   */
  credential?: string;
  /**
   * The provider's model name for this target (sets override_params.model).
   */
  model?: string;
  /**
   * The address of this deployment (the operator's, in configs.<name> and models.<name>); in a caller's config it is treated like custom_host.
   */
  base_url?: string;
  /**
   * Load-balancing weight (default 1).
   */
  weight?: number;
  /**
   * Body fields merged into the request (child wins over parent).
   */
  override_params?: {
    [k: string]: unknown;
  };
  /**
   * Replaces the provider's base URL; always allowed in configs.<name>, in a caller's config only with routing.allowCustomHost (and then no key the gateway holds goes there).
   */
  custom_host?: string;
  retry?: RetryConfig;
  /**
   * Deadline for the whole request in ms, retries and fallbacks included.
   */
  request_timeout?: number;
  /**
   * Deadline for the upstream's first byte in ms.
   */
  first_byte_timeout?: number;
  /**
   * Longest gap between stream chunks in ms.
   */
  idle_timeout?: number;
  /**
   * Client headers passed upstream for this target; never host, hop-by-hop, gateway-set (authorization, x-api-key, x-gateway-*...) or providers.<id>.headers names.
   */
  forward_headers?: string[];
  /**
   * Guardrail ids (guardrails.<id>) run on the request.
   */
  input_guardrails?: string[];
  /**
   * Guardrail ids run on the answer.
   */
  output_guardrails?: string[];
  cache?: CacheConfig;
  strategy?: RoutingStrategy;
  /**
   * @minItems 1
   */
  targets?: [RoutingTarget, ...RoutingTarget[]];
  azure_resource_name?: string;
  azure_deployment_id?: string;
  azure_api_version?: string;
  aws_access_key_id?: string;
  aws_secret_access_key?: string;
  aws_session_token?: string;
  aws_region?: string;
  vertex_project_id?: string;
  vertex_region?: string;
  /**
   * Fireworks account, for its fine-tuning API.
   */
  fireworks_account_id?: string;
  /**
   * The service account key, as a JSON string or object.
   */
  vertex_service_account_json?:
    | string
    | {
        [k: string]: unknown;
      };
  /**
   * A setting a provider declares (its fields, e.g. cloudflare_account_id, databricks_host): a name no provider declares is refused when the config is compiled.
   *
   * This interface was referenced by `RoutingTarget`'s JSON-Schema definition
   * via the `patternProperty` "^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$".
   */
  [k: string]: unknown;
}
/**
 * Retries of one target. None unless configured.
 */
export interface RetryConfig {
  /**
   * Extra tries after the first one (0 to 5).
   */
  attempts?: number;
  on_status_codes?: StatusCodes;
  /**
   * Wait as long as the upstream's Retry-After header asks instead of the backoff (bounded by the request deadline); default true, false always backs off.
   */
  use_retry_after_header?: boolean;
}
/**
 * Response cache. `simple` answers an identical request (same provider, model, body) from the cache within max_age seconds.
 */
export interface CacheConfig {
  mode: 'simple' | 'disabled';
  /**
   * Seconds an entry stays fresh (default 300).
   */
  max_age?: number;
}
export interface RoutingStrategy {
  mode: 'single' | 'fallback' | 'loadbalance' | 'conditional';
  on_status_codes?: StatusCodes1;
  conditions?: RoutingCondition[];
  /**
   * Target name used by conditional mode when no condition matches.
   */
  default?: string;
}
export interface RoutingCondition {
  /**
   * A query over `metadata.<key>` (x-gateway-metadata) and `params.<key>` (the request body) with the operators $eq $ne $in $nin $gt $gte $lt $lte $regex $and $or.
   */
  query: {
    [k: string]: unknown;
  };
  /**
   * The name of the target chosen when the query matches.
   */
  then: string;
}
