/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/gateway.schema.json by scripts/generate-types.mjs.
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

/**
 * The gateway config file (gateway.yaml). Any string may reference the environment as ${NAME} or ${NAME:-default}.
 */
export interface GatewayConfig {
  $schema?: string;
  server?: ServerConfig;
  logging?: LoggingConfig;
  observability?: ObservabilityConfig;
  metrics?: MetricsConfig;
  auth?: AuthConfig;
  /**
   * Per-provider settings, keyed by provider identifier.
   */
  providers?: {
    [k: string]: ProviderSettings;
  };
  routing?: RoutingSettings;
  /**
   * Named routing configs, usable by name in x-gateway-config.
   */
  configs?: {
    [k: string]: RoutingConfig;
  };
  secrets?: SecretsConfig;
  /**
   * Provider credentials the gateway holds, by name (contract §8).
   */
  credentials?: {
    [k: string]: HeldCredential;
  };
  /**
   * The model catalogue: public model names (or provider globs such as "openai/*") and how they are served.
   */
  models?: {
    [k: string]: CatalogueModel;
  };
  pricing?: PricingConfig;
  budgets?: BudgetsConfig;
  tenants?: TenantsConfig;
  cache?: CacheSettings;
  /**
   * Guardrails by id, used by the guardrail stage and by input_guardrails / output_guardrails.
   */
  guardrails?: {
    [k: string]: GuardrailConfig;
  };
  /**
   * Gateway rate limits.
   */
  rateLimits?: RateLimitRule[];
  redis?: RedisConfig;
  storage?: StorageConfig;
  batches?: BatchSettings;
  /**
   * Tool servers aggregated behind /mcp.
   */
  mcpServers?: {
    [k: string]: McpServerConfig;
  };
  identityForwarding?: IdentityForwardingConfig;
  ui?: UiConfig;
  pipelines?: PipelineSettings;
  /**
   * Module paths of plugins; each exports a stage's name, its config schema and a factory.
   */
  plugins?: string[];
}
export interface ServerConfig {
  /**
   * Listening address (default 0.0.0.0).
   */
  host?: string;
  /**
   * Listening port (default 8787; env GATEWAY_PORT).
   */
  port?: number;
  /**
   * The gateway's public address, e.g. https://gw.example.com. Default: the scheme and host a request came in on.
   */
  publicUrl?: string;
  /**
   * Origins allowed to call /mcp (an Origin header not listed is refused with 403).
   */
  allowedOrigins?: string[];
  /**
   * Accept credentials over plain HTTP on non-loopback addresses (for a gateway behind a TLS-terminating proxy).
   */
  allowInsecureHttp?: boolean;
  /**
   * How long SIGTERM waits for in-flight requests and streams, e.g. "30s".
   */
  shutdownGracePeriod?: string;
  /**
   * Largest JSON request body in bytes (default 10 MiB).
   */
  bodyLimit?: number;
  /**
   * How many connections may wait to be accepted (the listen(2) backlog; Linux caps it at net.core.somaxconn). Node's own default, 511, resets connections when thousands of clients connect at once.
   */
  backlog?: number;
  /**
   * Processes serving the port (a node:cluster): a number, or "auto" for one per core. Default 1 (no cluster). Rate-limit counters and the memory cache are then held by the primary process for all workers (or in Redis with redis.url); SIGTERM and SIGHUP go to the primary, which drains or reloads every worker.
   */
  workers?: number | 'auto';
  ssl?: SslConfig;
}
export interface SslConfig {
  enabled?: boolean;
  /**
   * Path of the PEM certificate (chain).
   */
  cert?: string;
  /**
   * Path of the PEM private key.
   */
  key?: string;
}
export interface LoggingConfig {
  level?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /**
   * Log one line per request.
   */
  requests?: boolean;
}
/**
 * Traces (OpenTelemetry). Prometheus metrics are always served at /metrics (see metrics).
 */
export interface ObservabilityConfig {
  otlp?: OtlpConfig;
}
/**
 * Export OpenTelemetry spans over OTLP/HTTP. Without an endpoint tracing is off and costs nothing (the OpenTelemetry packages are not loaded).
 */
export interface OtlpConfig {
  /**
   * Base URL of the OTLP/HTTP receiver (a collector, Jaeger, Tempo...); spans go to <endpoint>/v1/traces. Example: http://127.0.0.1:4318.
   */
  endpoint?: string;
  /**
   * Wire format of the export.
   */
  protocol?: 'http/protobuf' | 'http/json';
  /**
   * Headers sent with every export (e.g. Authorization for a hosted backend); their values are secrets.
   */
  headers?: {
    [k: string]: string;
  };
  /**
   * service.name of the spans' resource.
   */
  serviceName?: string;
  /**
   * Share of new traces recorded (0 to 1); a request continuing a caller's trace follows the caller's sampled flag.
   */
  sampleRatio?: number;
}
/**
 * The Prometheus metrics at /metrics: who may read them, and model names shown as labels.
 */
export interface MetricsConfig {
  /**
   * Who may read /metrics: none (anyone, the default), admin (Authorization: Bearer <admin token>) or gateway (any gateway credential: a gateway token or a key of auth.apiKeys, in x-gateway-token or Authorization: Bearer). Anyone else gets 401 with WWW-Authenticate.
   */
  auth?: 'none' | 'admin' | 'gateway';
  /**
   * Model names gateway_tokens_total shows in its model label, besides those the config names elsewhere (override_params of configs.<name>, modelAllowList checks); any other model is counted as other.
   *
   * @maxItems 2000
   */
  models?: string[];
}
/**
 * Authentication of the tool-server endpoint (/mcp), and of provider routes when providerRoutes is true.
 */
export interface AuthConfig {
  /**
   * Env GATEWAY_AUTH_ENABLED.
   */
  enabled?: boolean;
  /**
   * Env GATEWAY_AUTH_TYPE.
   */
  type?: 'bearer' | 'api-key' | 'oauth' | 'mtls';
  /**
   * Header carrying the key, for api-key (default X-API-Key).
   */
  header?: string;
  /**
   * Bearer token for the token operations (env GATEWAY_ADMIN_TOKEN): at least 32 random characters, never a placeholder from the examples.
   */
  adminToken?: string;
  /**
   * Default lifetime of issued tokens, e.g. "30d".
   */
  tokenExpiration?: string;
  /**
   * Demand a gateway credential (x-gateway-token) on provider routes.
   */
  providerRoutes?: boolean;
  /**
   * Identity provider name, for oauth (e.g. google, okta, auth0, custom).
   */
  provider?: string;
  clientId?: string;
  clientSecret?: string;
  /**
   * Issuer URL; its /.well-known/openid-configuration is read.
   */
  issuer?: string;
  /**
   * Accepted audience(s); default the client id, else this gateway's /mcp URL.
   */
  audience?: string | string[];
  scopes?: string[];
  claims?: ClaimNames;
  /**
   * CA certificate path, for mtls.
   */
  ca?: string;
  requireClientCert?: boolean;
  oauth?: OAuthServerConfig;
  /**
   * Static keys, for api-key.
   */
  apiKeys?: ConfiguredApiKey[];
}
/**
 * Claim names that carry the identity.
 */
export interface ClaimNames {
  email?: string;
  name?: string;
  team?: string;
  roles?: string;
  organization?: string;
}
/**
 * The gateway's part in OAuth for /mcp (auth.type oauth): a resource server only (tokens of auth.issuer), or the authorization server itself (authorization code with PKCE S256, client id metadata documents, dynamic registration, login with a gateway key or through auth.issuer, consent, audience-bound access tokens it signs, rotating refresh tokens, revocation).
 */
export interface OAuthServerConfig {
  /**
   * resource-server: /mcp accepts the access tokens of auth.issuer. authorization-server: the gateway serves /oauth/* and /.well-known/oauth-authorization-server and signs the tokens /mcp accepts (auth.issuer, when set, is where users may log in).
   */
  role?: 'resource-server' | 'authorization-server';
  /**
   * How users log in at /oauth/authorize: gateway-key (a form taking a gateway key or a key of auth.apiKeys), oidc (the OpenID provider auth.issuer, with auth.clientId and auth.clientSecret). Default: gateway-key, and oidc too when auth.issuer is set.
   *
   * @minItems 1
   */
  login?: ['gateway-key' | 'oidc', ...('gateway-key' | 'oidc')[]];
  /**
   * Lifetime of access tokens (signed JWTs), e.g. "10m".
   */
  accessTokenLifetime?: string;
  /**
   * Lifetime of a refresh token family from its first issue, e.g. "30d".
   */
  refreshTokenLifetime?: string;
  /**
   * Lifetime of an authorization code, e.g. "60s".
   */
  codeLifetime?: string;
  /**
   * How long a started authorization (its login and consent pages) may take, e.g. "10m".
   */
  loginLifetime?: string;
  /**
   * How long a fetched client id metadata document is cached, e.g. "5m".
   */
  clientMetadataTtl?: string;
  loginAttempts?: OAuthLoginAttempts;
  /**
   * Serve RFC 7591 dynamic client registration at /oauth/register (the legacy way; client id metadata documents are preferred).
   */
  dynamicRegistration?: boolean;
  /**
   * Fetch client id metadata documents from http:// URLs and loopback or private addresses (tests and local development only; default off: https:// on public addresses only).
   */
  allowInsecureClientMetadata?: boolean;
  /**
   * PEM (PKCS#8) private key that signs access tokens: EC P-256 (ES256) or Ed25519 (EdDSA); usually "${ENV_NAME}". Without it a key is made at start-up (access tokens then end with the process and are not shared by instances).
   */
  signingKey?: string;
  /**
   * Keys that signed access tokens before signingKey (a rotation): they no longer sign, but still verify the tokens they signed (by the token's kid) and are served in the JWKS. Remove one once accessTokenLifetime has passed since it stopped signing. PEM (PKCS#8) EC P-256 or Ed25519, usually "${ENV_NAME}".
   */
  previousSigningKeys?: string[];
}
/**
 * Failed logins allowed at /oauth/login per client address in a window; past them every login from that address answers 429 (rate_limit_exceeded, Retry-After) until the window ends.
 */
export interface OAuthLoginAttempts {
  /**
   * Failed logins allowed in a window (default 10).
   */
  max?: number;
  /**
   * The window, e.g. "15m" (default).
   */
  window?: string;
}
export interface ConfiguredApiKey {
  /**
   * The key value, usually "${ENV_NAME}".
   */
  key: string;
  user?: string;
  email?: string;
  name?: string;
  team?: string;
  roles?: string[];
  organization?: string;
  scopes?: string[];
  permissions?: Permissions;
  /**
   * Unix seconds or ISO 8601.
   */
  expiresAt?: number | string;
}
export interface Permissions {
  servers?: string[];
  /**
   * Tool names as server__tool, or server__* patterns.
   */
  tools?: string[];
}
export interface ProviderSettings {
  /**
   * Replaces the provider's public address; the provider's own paths are appended.
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
   * This provider's own key, used by routing targets of this provider that name no api_key when the request's key belongs to another provider (a request's key only ever goes to the provider it names); only for requests that bring a gateway credential, and never sent to a caller's custom_host.
   */
  apiKey?: string;
  [k: string]: unknown;
}
export interface RoutingSettings {
  /**
   * Honour custom_host in callers' routing configs and x-gateway-custom-host (the operator's configs.<name> may always set custom_host).
   */
  allowCustomHost?: boolean;
  circuitBreaker?: CircuitBreakerConfig;
  /**
   * A config name (configs.<name>) used when a request sends none.
   */
  defaultConfig?: string;
  defaults?: RoutingDefaults;
}
export interface CircuitBreakerConfig {
  /**
   * Consecutive failures that open a target's circuit.
   */
  failureThreshold: number;
  /**
   * Time before an open circuit half-opens, e.g. "30s".
   */
  cooldown: string;
}
/**
 * Deadlines of every upstream attempt whose routing config sets none, so that no request or stream waits forever.
 */
export interface RoutingDefaults {
  /**
   * Wait for the upstream's first byte: milliseconds, or a duration such as "120s" (default 120 s).
   */
  first_byte_timeout?: number | string;
  /**
   * Longest gap between two chunks of an upstream answer: milliseconds, or a duration such as "60s" (default 60 s).
   */
  idle_timeout?: number | string;
}
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
/**
 * How the gateway keeps the secrets it holds (held credentials, users' tool-server tokens of per_user_oauth) at rest.
 */
export interface SecretsConfig {
  /**
   * Key of AES-256-GCM for held credentials at rest (env GATEWAY_SECRET_KEY): 32 bytes as 64 hex digits or base64, or a passphrase of at least 32 characters.
   */
  key?: string;
  /**
   * Keys used before `key`: what they encrypted is read and re-encrypted under `key` at start-up (key rotation).
   */
  previousKeys?: string[];
}
/**
 * A provider credential the gateway holds (credentials.<name>): the provider and the fields a routing target would carry for it (api_key, or the provider's settings such as aws_access_key_id; each provider declares which). Used only for requests with a gateway key allowed to reach it, and only toward the provider's own address or the operator's configured base_url.
 */
export interface HeldCredential {
  provider: string;
  api_key?: string;
  description?: string;
  [k: string]: unknown;
}
/**
 * A model of the catalogue (models.<public name>): a routing config of routing.schema.json (targets with provider, model, credential, optional base_url, strategy, retries; validated against it with these three fields set apart) plus the fields below. A name ending in /* ("openai/*") routes every model of a provider: the part after the slash is the model.
 */
export interface CatalogueModel {
  price?: PriceOverride;
  /**
   * Tokens the model reads at most (prompt and output).
   */
  context_window?: number;
  /**
   * Tokens the model writes at most: the output a budget reserves when the request sets no max_tokens.
   */
  max_output_tokens?: number;
  description?: string;
  [k: string]: unknown;
}
/**
 * A catalogue model's own price (models.<name>.price), replacing the shipped table's: the same fields, date and source optional.
 */
export interface PriceOverride {
  /**
   * Per prompt token read neither from nor into a cache.
   */
  input?: string;
  /**
   * Per generated token.
   */
  output?: string;
  /**
   * Per prompt token read from the provider's prompt cache.
   */
  cache_read?: string;
  /**
   * Per prompt token written into the provider's prompt cache (its default lifetime).
   */
  cache_write?: string;
  /**
   * Per reasoning token where the provider prices them apart from output.
   */
  reasoning?: string;
  /**
   * Per audio prompt token.
   */
  input_audio?: string;
  /**
   * Per generated audio token.
   */
  output_audio?: string;
  /**
   * When the price was read from its source (YYYY-MM-DD).
   */
  date?: string;
  /**
   * Where the price comes from (shown in the ledger's price source).
   */
  source?: string;
  /**
   * Per generated image (the default size and quality).
   */
  per_image?: string;
  /**
   * Per second of audio sent (transcription, translation).
   */
  per_audio_second?: string;
  /**
   * Per character of input text (speech synthesis).
   */
  per_character?: string;
  /**
   * Share taken off every token price for requests run through a batch (0.5: half price).
   */
  batch_discount?: string;
  /**
   * Long-context tiers: where a request's prompt is larger than above_input_tokens, the tier's prices replace the base prices for the whole request (the highest tier that applies wins).
   */
  tiers?: PriceTier[];
}
export interface PriceTier {
  /**
   * The prompt size (tokens of every input class) above which this tier's prices apply.
   */
  above_input_tokens: number;
  /**
   * Per prompt token read neither from nor into a cache.
   */
  input?: string;
  /**
   * Per generated token.
   */
  output?: string;
  /**
   * Per prompt token read from the provider's prompt cache.
   */
  cache_read?: string;
  /**
   * Per prompt token written into the provider's prompt cache (its default lifetime).
   */
  cache_write?: string;
  /**
   * Per reasoning token where the provider prices them apart from output.
   */
  reasoning?: string;
  /**
   * Per audio prompt token.
   */
  input_audio?: string;
  /**
   * Per generated audio token.
   */
  output_audio?: string;
}
export interface PricingConfig {
  /**
   * A model with no price under a money budget: refuse (403 naming the model, the default) or allow (served, recorded with cost null).
   */
  unpriced?: 'refuse' | 'allow';
}
/**
 * Budgets from the config file by scope and subject (read-only through /v1/admin/budgets, source: file), and how budgets behave.
 */
export interface BudgetsConfig {
  /**
   * With the shared store unreachable: refuse (503 service_unavailable) or allow (served, recorded as unverified, logged at warn).
   */
  onStoreDown?: 'refuse' | 'allow';
  alertWebhook?: BudgetAlertWebhook;
  /**
   * How long a budget check may wait for the store before the store counts as down (onStoreDown), e.g. "1s" or "500ms". Default: 1s with Redis; 5s on PostgreSQL or SQLite, where checks on one budget queue behind its lock.
   */
  storeTimeout?: string;
  /**
   * How long a reservation outlives its instance's last heartbeat (e.g. "30s").
   */
  reservationTtl?: string;
  leases?: BudgetLeases;
  key?: BySubject;
  user?: BySubject;
  team?: BySubject;
  organization?: BySubject;
  customer?: BySubject;
  model?: BySubject;
  credential?: BySubject;
}
/**
 * Where budget alerts are POSTed (JSON).
 */
export interface BudgetAlertWebhook {
  url: string;
  headers?: {
    [k: string]: string;
  };
}
/**
 * Budget leases: an instance takes a slice of a budget from the shared store in one atomic step and reserves requests from it in memory, so most requests make no store call. A slice is returned (its real spend settled) when it has been open `interval` and its last request settles; it expires like any reservation if its instance dies. Near a budget's limit a slice shrinks to one request, which is then exact.
 */
export interface BudgetLeases {
  /**
   * How many of the current request's worst-case cost one slice holds (0: no leases; every request reserves in the store).
   */
  requests?: number;
  /**
   * The most of what was left of a budget at the last slice that one slice takes (0 to 1).
   */
  share?: number;
  /**
   * How long a slice takes new requests before it is returned, e.g. "1s" or "250ms" (the most spend lags in the store's counters).
   */
  interval?: string;
}
/**
 * Budgets by subject (the key id, user, team, organisation, customer, catalogue model or credential name).
 */
export interface BySubject {
  [k: string]:
    | Budget
    | []
    | [Budget]
    | [Budget, Budget]
    | [Budget, Budget, Budget]
    | [Budget, Budget, Budget, Budget]
    | [Budget, Budget, Budget, Budget, Budget]
    | [Budget, Budget, Budget, Budget, Budget, Budget]
    | [Budget, Budget, Budget, Budget, Budget, Budget, Budget]
    | [Budget, Budget, Budget, Budget, Budget, Budget, Budget, Budget]
    | [Budget, Budget, Budget, Budget, Budget, Budget, Budget, Budget, Budget]
    | [Budget, Budget, Budget, Budget, Budget, Budget, Budget, Budget, Budget, Budget];
}
/**
 * A spending limit in money and/or tokens over a window (contract §8). Every budget that applies to a request must fit.
 */
export interface Budget {
  /**
   * A label for answers, alerts and the console (default: the scope and subject).
   */
  name?: string;
  /**
   * US dollars per window (kept as whole microdollars).
   */
  limit_usd?: number;
  /**
   * Tokens (every class) per window.
   */
  limit_tokens?: number;
  window?: BudgetWindow;
  /**
   * block: refuse what does not fit (429 budget_exceeded); audit: record and alert, never refuse.
   */
  action?: 'block' | 'audit';
  /**
   * Percentages of the limit at which an alert is sent (webhook) and logged, once per window each.
   *
   * @maxItems 10
   */
  alerts?:
    | []
    | [number]
    | [number, number]
    | [number, number, number]
    | [number, number, number, number]
    | [number, number, number, number, number]
    | [number, number, number, number, number, number]
    | [number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number, number, number];
}
export interface BudgetWindow {
  /**
   * day, week, month, total (never resets), or a length: "<n>h" or "<n>d".
   */
  period?: string;
  /**
   * calendar: windows start at calendar boundaries in `timezone`; rolling: the last `period` up to now.
   */
  kind?: 'calendar' | 'rolling';
  /**
   * IANA time zone of calendar windows (default UTC).
   */
  timezone?: string;
}
/**
 * Organisations, teams and users from the config file (read-only through the admin API, source: file). Keys belong to a user and a team; teams to an organisation.
 */
export interface TenantsConfig {
  organizations?: {
    [k: string]: OrganizationConfig;
  };
  teams?: {
    [k: string]: TeamConfig;
  };
  users?: {
    [k: string]: UserConfig;
  };
}
export interface OrganizationConfig {
  name?: string;
  metadata?: {
    [k: string]: unknown;
  };
}
export interface TeamConfig {
  name?: string;
  organization?: string;
  /**
   * Catalogue models (names or globs) the team's keys may use at most.
   */
  models?: string[];
  metadata?: {
    [k: string]: unknown;
  };
}
export interface UserConfig {
  name?: string;
  email?: string;
  team?: string;
  /**
   * admin, viewer or team_admin give access to the admin API.
   */
  roles?: string[];
  metadata?: {
    [k: string]: unknown;
  };
}
export interface CacheSettings {
  /**
   * Entries kept by the in-memory cache.
   */
  maxEntries?: number;
  /**
   * Where cached answers live; redis needs redis.url.
   */
  store?: 'memory' | 'redis';
}
/**
 * One guardrail: a list of checks and what to do when one fails.
 */
export interface GuardrailConfig {
  /**
   * deny: 422 guardrail_failed; flag: the answer passes with x-gateway-guardrail-verdict: flagged; redact: what regex, contains and pii checks matched is masked (a failing check with nothing to mask flags).
   */
  action?: 'deny' | 'flag' | 'redact';
  /**
   * @minItems 1
   */
  checks: [GuardrailCheck, ...GuardrailCheck[]];
}
/**
 * One check: `type` names its kind (regex, contains, wordCount, characterCount, jsonParse, jsonSchema, pii, modelAllowList, webhook, or a guardrail-check a plugin registers); the other keys are its settings, checked against the kind's schema (schema/checks/<type>.schema.json for the built-in ones) when the gateway starts.
 */
export interface GuardrailCheck {
  /**
   * The check kind.
   */
  type: string;
  [k: string]: unknown;
}
export interface RateLimitRule {
  per: 'key' | 'token' | 'user' | 'team' | 'ip';
  /**
   * Requests per window.
   */
  limit: number;
  window: string;
  /**
   * Optional token budget per window (from usage).
   */
  tokens?: number;
  /**
   * Paths this rule applies to (default every provider route).
   */
  routes?: string[];
}
export interface RedisConfig {
  /**
   * e.g. redis://127.0.0.1:6379; shares rate-limit counters and the cache between instances.
   */
  url?: string;
  keyPrefix?: string;
}
export interface StorageConfig {
  type?: 'sqlite' | 'postgres';
  /**
   * SQLite file (default ./data/gateway.db, under GATEWAY_DATA_DIR when set).
   */
  path?: string;
  /**
   * PostgreSQL connection string, for postgres.
   */
  url?: string;
  /**
   * PostgreSQL schema to use (default public).
   */
  schema?: string;
  /**
   * Folder for files the gateway keeps (default: `files` beside storage.path when that is set, else ./data/files; under GATEWAY_DATA_DIR when set).
   */
  filesDir?: string;
}
export interface BatchSettings {
  /**
   * Lines of a gateway-run batch in flight at once.
   */
  concurrency?: number;
  /**
   * Times one line of a gateway-run batch waits out a 429 (Retry-After) before the 429 is its result.
   */
  maxRateLimitWaits?: number;
  /**
   * A line found in flight after a crash (sent, answer not recorded): fail (recorded as failed, never sent twice; the default) or resend (sent again, at-least-once).
   */
  interruptedLines?: 'fail' | 'resend';
  /**
   * How long a gateway process's claim on the batch lines it is sending lasts without renewal (renewed every few seconds while it runs). The processes of a cluster and the instances on one PostgreSQL share the lines of a batch; lines of a process that stopped are taken over by another once this passes (then failed or resent, per interruptedLines). A duration: 30s, 2m.
   */
  claimTimeout?: string;
  /**
   * How often the gateway asks a provider about the batches it runs that were submitted with a gateway key on a key the gateway holds, until each finishes and is billed per line (also billed as soon as a caller retrieves it finished). One instance asks about each batch. A duration: 60s, 5m.
   */
  providerPollInterval?: string;
}
export interface McpServerConfig {
  /**
   * Command that starts a process tool server (stdio).
   */
  command?: string;
  args?: string[];
  env?: {
    [k: string]: string;
  };
  cwd?: string;
  /**
   * Address of a remote Streamable HTTP tool server (give either command or url).
   */
  url?: string;
  /**
   * Headers (credentials) sent to the remote server; never shown to callers.
   */
  headers?: {
    [k: string]: string;
  };
  enabled?: boolean;
  /**
   * US dollars charged per tools/call of each tool (decimal strings, e.g. "0.002"), to requests made with a gateway key; a tool not listed costs 0. Each call is a usage ledger row with route /mcp.
   */
  toolPrices?: {
    [k: string]: string;
  };
  /**
   * Per-request timeout in ms.
   */
  timeout?: number;
  /**
   * How long a call waits for the server while it starts or reconnects, in ms (default 10000).
   */
  startTimeout?: number;
  /**
   * Process server: at most this many client sessions, each with a process of its own (default 64).
   */
  maxSessions?: number;
  auth?: McpServerAuth;
  /**
   * Tools pinned against silent changes: a SHA-256 of each tool's canonical definition (name, title, description, inputSchema, outputSchema, annotations, _meta), of each prompt and of the server's instructions is recorded on first sight (in the store every instance shares). On a change, strict hides the tool and refuses its calls (JSON-RPC error -32006) until an admin approves it (POST /v1/admin/mcp/servers/{name}/tools/{tool}/approve), and holds a new tool the same way; warn serves it; both log, audit and count it (gateway_mcp_pin_changes_total) with what changed. off: nothing is recorded.
   */
  pin?: 'strict' | 'warn' | 'off';
}
/**
 * How the gateway authenticates to a remote tool server. static (default): the configured headers. client_credentials: an access token of the gateway's own client (OAuth 2.0 client credentials grant at tokenEndpoint), the same for every caller. token_exchange: for each caller, the caller's bearer token is exchanged (RFC 8693) at tokenEndpoint for a token of this server's audience and scopes (the gateway's own requests, such as its first list, use the client credentials grant). per_user_oauth: each caller (gateway identity) connects once through the gateway, which runs the server's OAuth 2.1 authorization code flow with PKCE S256 (clientId, optional clientSecret, scopes; authorizationEndpoint and tokenEndpoint, or neither: then discovered from the server's RFC 9728 protected-resource metadata and its authorization server's RFC 8414 metadata, https only; the gateway's callback is /oauth/upstream/callback) and keeps that caller's tokens sealed in the store (secrets.key required), refreshed before they expire; a caller without a connection gets JSON-RPC error -32007 whose data.connect_url is the page to open (on /mcp the server's tools are absent from their list until then); the gateway's own requests (its first list) go without a token. Tokens are cached until shortly before they expire. The caller's own token never reaches the tool server.
 */
export interface McpServerAuth {
  upstream: 'static' | 'client_credentials' | 'token_exchange' | 'per_user_oauth';
  /**
   * per_user_oauth: the tool server's authorization endpoint, where the user's browser is sent (https://, or http:// on loopback).
   */
  authorizationEndpoint?: string;
  /**
   * The authorization server's token endpoint (https://, or http:// on loopback).
   */
  tokenEndpoint?: string;
  /**
   * The gateway's client id at the token endpoint (client_secret_basic).
   */
  clientId?: string;
  /**
   * The gateway's client secret (use ${ENV}); never shown or logged. Optional with per_user_oauth (a public client then, PKCE only).
   */
  clientSecret?: string;
  /**
   * The audience asked for (RFC 8693 audience), e.g. the tool server's URL or identifier.
   */
  audience?: string;
  /**
   * The resource indicator asked for (RFC 8707), when the authorization server takes one.
   */
  resource?: string;
  /**
   * The scopes asked for.
   */
  scopes?: string[];
  /**
   * The type of the caller's token sent as subject_token (default urn:ietf:params:oauth:token-type:access_token).
   */
  subjectTokenType?:
    | 'urn:ietf:params:oauth:token-type:access_token'
    | 'urn:ietf:params:oauth:token-type:jwt'
    | 'urn:ietf:params:oauth:token-type:id_token';
  /**
   * How long a request to the token endpoint may take, in ms (default 10000).
   */
  timeout?: number;
}
export interface IdentityForwardingConfig {
  enabled?: boolean;
  headers?: ('email' | 'name' | 'team' | 'roles' | 'organization')[];
  /**
   * Adds X-Gateway-Identity-Signature (HMAC-SHA256).
   */
  signingSecret?: string;
  /**
   * Organization used when an identity has none.
   */
  organizationId?: string;
}
/**
 * The admin console: a browser app served at /ui (pipelines/ui.yaml), a client of the admin API that logs in through POST /v1/admin/session.
 */
export interface UiConfig {
  /**
   * Serve the console at /ui (default false: /ui answers 404). The admin API, POST /v1/admin/session included, works either way.
   */
  enabled?: boolean;
  /**
   * Make the console read-only: the admin API refuses every write (403) made with a console session cookie, whatever the session's role; bearer callers are not affected.
   */
  readOnly?: boolean;
  /**
   * How long an admin session cookie (POST /v1/admin/session) stays valid, in seconds (default 28800: 8 hours).
   */
  sessionTtl?: number;
}
export interface PipelineSettings {
  /**
   * Folder of pipeline files (default ./pipelines).
   */
  dir?: string;
}
