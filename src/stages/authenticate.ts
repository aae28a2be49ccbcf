import type { AuthenticateStageConfig } from '../generated/stages/authenticate.js';
import { schemaDocument } from '../kernel/config/schema-validator.js';
import { headerValue, type GatewayContext, IDENTITY } from '../kernel/engine/context.js';
import { ExtensionConfigError } from '../kernel/engine/extension.js';
import { PipelineError } from '../kernel/engine/pipeline-compiler.js';
import { CALLER } from '../kernel/engine/report.js';
import type { GatewayServices } from '../kernel/engine/services.js';
import { defineStage, type Middleware } from '../kernel/engine/stage.js';
import { badRequest, GatewayError } from '../contract/errors/gateway-error.js';
import { namesItsModel } from '../contract/routes.js';
import { PROVIDER, PROVIDER_KEY, PROVIDERS, providerKeyFrom, rememberRequestCredentials } from '../features/models/index.js';
import {
  ADMIN,
  ADMIN_ACCESS,
  ADMIN_SESSIONS,
  ANONYMOUS,
  AUTH_MODES,
  CONFIG_KEYS,
  GATEWAY_CALLER,
  GATEWAY_KEY,
  PROVIDER_ROUTE_AUTH,
  TOKEN_SERVICE,
  USER_ROLES,
  checkAdminOrKey,
  presentedGatewayKey,
} from '../features/auth/index.js';

/**
 * Provider routes: the provider header first (missing or unknown: 400, unless a routing config
 * names the providers), then the provider key (missing: 401), then the gateway credential
 * when sent or when auth.providerRoutes demands it.
 *
 * A refusal is deferred (ctx.deferRejection): the stages that see rejected requests still run
 * (rate-limit counts the request in the limits it can count, by client address or by the gateway
 * credential, and the refusal carries the X-RateLimit headers), then the request is answered
 * with it, nothing else running. The first refusal found is the answer; the gateway credential
 * is still checked after one, for the identity the limits count (its own refusal, or a failure
 * of the store, then changes nothing).
 */
function providerCredentials(config: AuthenticateStageConfig, services: GatewayServices): Middleware {
  const requireKey = config.providerKey ?? true;
  const defaultConfig = services.config.routing?.defaultConfig;
  const demandGatewayCredential = services.config.auth?.providerRoutes === true;
  const catalogue = Object.keys(services.config.models ?? {}).length > 0;
  const providers = services.require(PROVIDERS);
  const gatewayAuth = services.get(PROVIDER_ROUTE_AUTH);
  const unknownProvider = (provider: string) => badRequest(`Unknown provider "${provider}". Known providers: ${providers.ids().join(', ')}.`, 'x-gateway-provider');
  /** Lets the request on to the stages that see rejected requests (and, without a refusal, to the rest). */
  const admitted = (ctx: GatewayContext, next: () => Promise<void>): Promise<void> => {
    ctx.set(CALLER, true);
    return next();
  };
  /** A refusal of the gateway credential: deferred like the others; a failure that is no refusal (the store's) fails now, unless the request is refused already. */
  const refused = (ctx: GatewayContext, err: unknown, next: () => Promise<void>): Promise<void> => {
    if (ctx.deferredRejection === undefined && !(err instanceof GatewayError && err.status < 500)) return Promise.reject(err);
    ctx.deferRejection(err as Error);
    return admitted(ctx, next);
  };
  return (ctx, next) => {
    const provider = headerValue(ctx.headers, 'x-gateway-provider')?.trim().toLowerCase();
    const configHeader = Boolean(headerValue(ctx.headers, 'x-gateway-config'));
    const presented = gatewayAuth ? presentedGatewayKey(ctx, demandGatewayCredential) : undefined;
    // With a gateway key and no provider or config named, the request is routed by its model (the catalogue), or answered from what the gateway keeps (GET /v1/models, kept responses).
    const byCatalogue =
      Boolean(presented) && !provider && !configHeader && ((ctx.endpoint as { keptByGateway?: true }).keptByGateway === true || (catalogue && namesItsModel(ctx.endpoint)));
    // x-gateway-provider wins over routing.defaultConfig (an explicit x-gateway-config still routes).
    const routed = configHeader || byCatalogue || (Boolean(defaultConfig) && !provider);
    if (provider) ctx.set(PROVIDER, provider);
    // The header that carries the gateway key carries no provider key.
    const key = providerKeyFrom(ctx, presented?.header);
    if (key) {
      ctx.set(PROVIDER_KEY, key);
      ctx.secrets.push(key);
    }
    rememberRequestCredentials(ctx);
    if (!routed) {
      if (!provider) ctx.deferRejection(badRequest('The x-gateway-provider header is required (or send a routing config in x-gateway-config).', 'x-gateway-provider'));
      else if (!providers.has(provider)) ctx.deferRejection(unknownProvider(provider));
      else if (requireKey && !key && providers.get(provider)?.requiresKey !== false) {
        ctx.deferRejection(new GatewayError('invalid_api_key', `No API key for ${provider}: send it in x-gateway-api-key or Authorization: Bearer <key>.`, { provider }));
      }
    } else if (provider && !providers.has(provider)) {
      ctx.deferRejection(unknownProvider(provider));
    }
    if (gatewayAuth && (demandGatewayCredential || presented)) {
      let checking: Promise<void> | undefined;
      try {
        checking = gatewayAuth.authenticate(ctx, demandGatewayCredential, presented);
      } catch (err) {
        return refused(ctx, err, next);
      }
      if (checking)
        return checking.then(
          () => admitted(ctx, next),
          (err: unknown) => refused(ctx, err, next),
        );
    } else if (demandGatewayCredential) {
      ctx.deferRejection(new GatewayError('invalid_api_key', 'A gateway key is required on this route: send it in Authorization: Bearer, x-api-key, api-key or x-gateway-token.'));
    }
    return admitted(ctx, next);
  };
}

/** A route path split at its `{param}` segments: text at even indexes, parameter names at odd ones. */
const pathParts = new Map<string, string[]>();

/** The path of the endpoint served (its route's path, parameters filled in): OAuth's default audience. */
function resourcePath(ctx: GatewayContext): string {
  const path = ctx.endpoint.path;
  let parts = pathParts.get(path);
  if (!parts) pathParts.set(path, (parts = path.split(/\{(\w+)\}/)));
  if (parts.length === 1) return path;
  let out = parts[0]!;
  for (let i = 1; i < parts.length; i += 2) out += (ctx.params[parts[i]!] ?? '') + parts[i + 1]!;
  return out;
}

/** The tool-server endpoint: the auth mode of auth.type (or the stage's `mode`); anonymous when auth is disabled. */
function gatewayCredential(config: AuthenticateStageConfig, services: GatewayServices): Middleware {
  const auth = services.config.auth ?? {};
  if (!auth.enabled && config.mode === undefined) {
    return (ctx, next) => {
      ctx.identity = ANONYMOUS;
      ctx.set(CALLER, true);
      ctx.set(GATEWAY_CALLER, true);
      return next();
    };
  }
  const modes = services.require(AUTH_MODES);
  const name = config.mode ?? auth.type ?? 'bearer';
  const def = modes.get(name);
  if (!def) throw new ExtensionConfigError([`mode: unknown auth mode "${name}" (known: ${modes.names().join(', ')})`]);
  // Built-in modes read their settings from the auth section (the keys their schema names); the stage's options come on top.
  const known = Object.keys((def.schema.properties as Record<string, unknown> | undefined) ?? {});
  const fromAuth = Object.fromEntries(known.flatMap((k) => ((auth as Record<string, unknown>)[k] !== undefined ? [[k, (auth as Record<string, unknown>)[k]]] : [])));
  let settings: unknown;
  try {
    settings = modes.validate(name, { ...fromAuth, ...config.options }, config.options ? 'options' : 'auth');
  } catch (err) {
    // Settings that came from the auth section are named by their key there (auth.issuer).
    if (err instanceof ExtensionConfigError && !config.options) throw new PipelineError(err.problems);
    throw err;
  }
  const authenticator = def.create(settings, {
    config: services.config,
    tokens: services.require(TOKEN_SERVICE),
    keys: services.require(CONFIG_KEYS),
    logger: services.logger,
    services,
  });
  return async (ctx, next) => {
    ctx.identity = await authenticator.authenticate(ctx, resourcePath(ctx));
    ctx.set(CALLER, true);
    ctx.set(GATEWAY_CALLER, true);
    await next();
  };
}

/**
 * The admin routes: Authorization: Bearer <admin token>, an admin session, or a gateway key
 * holding one of `roles` (on the key, or its user's roles in the tenants); no `roles`: the admin
 * role only, which a session opened with a key holding it has too, so the key as a bearer has it.
 */
function adminCredential(config: AuthenticateStageConfig, services: GatewayServices): Middleware {
  const roles = config.roles?.length ? config.roles : (['admin'] as const);
  const tokens = services.require(TOKEN_SERVICE);
  const keys = services.get(CONFIG_KEYS);
  const userRoles = services.get(USER_ROLES);
  const sessions = services.get(ADMIN_SESSIONS);
  return async (ctx, next) => {
    const checked = await checkAdminOrKey(ctx.req, services.config, roles, tokens, keys, userRoles, sessions);
    ctx.identity = checked.identity;
    ctx.set(CALLER, true);
    ctx.set(ADMIN, true);
    ctx.set(ADMIN_ACCESS, checked.access);
    await next();
  };
}

/**
 * Who is calling, by the credential the pipeline's routes take: `provider` (provider routes:
 * x-gateway-provider and its key, and x-gateway-token), `gateway` (/mcp: the auth mode, with
 * the WWW-Authenticate challenge on a 401), or `admin` (the token operations).
 */
export default defineStage<AuthenticateStageConfig>({
  name: 'authenticate',
  description: 'Checks the caller: provider credentials, the gateway auth mode (/mcp), or the admin token.',
  schema: schemaDocument('stages/authenticate.schema.json'),
  once: true,
  provides: (config) =>
    config.credential === 'gateway'
      ? [CALLER, GATEWAY_CALLER, IDENTITY]
      : config.credential === 'admin'
        ? [CALLER, ADMIN, ADMIN_ACCESS, IDENTITY]
        : [CALLER, PROVIDER, PROVIDER_KEY],
  // Provider routes: a gateway key or token is optional (identity and key only when one was sent).
  // The gateway auth modes (/mcp) set the key of a gateway token or config key they accept.
  writes: (config) => (config.credential === 'admin' ? [] : config.credential === 'gateway' ? [GATEWAY_KEY] : [IDENTITY, GATEWAY_KEY]),
  create(config, services) {
    switch (config.credential ?? 'provider') {
      case 'gateway':
        return gatewayCredential(config, services);
      case 'admin':
        return adminCredential(config, services);
      default:
        return providerCredentials(config, services);
    }
  },
});
