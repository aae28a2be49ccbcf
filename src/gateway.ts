import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import type { GatewayConfig } from './generated/gateway.js';
import type { DestinationStream } from 'pino';
import { createLogger } from './kernel/observability/logger.js';
import { registerSecrets } from './kernel/errors/redact.js';
import { configSecrets } from './config.js';
import { CONFIG_ADMIN, type ConfigAdmin, type ReloadOutcome } from './kernel/engine/config-admin.js';
import { checkConfigText } from './cli/check.js';
import { Metrics } from './kernel/observability/metrics.js';
import { setupTracing } from './kernel/engine/tracing.js';
import { ExtensionKinds } from './kernel/engine/extension.js';
import { StageRegistry } from './kernel/engine/stage-registry.js';
import { compilePipelines, PipelineError, type CompiledPipeline } from './kernel/engine/pipeline-compiler.js';
import { loadPlugins } from './kernel/engine/plugin-loader.js';
import { GatewayServices } from './kernel/engine/services.js';
import { LIFECYCLE, type Lifecycle } from './kernel/engine/lifecycle.js';
import type { ContextEdge } from './kernel/engine/context.js';
import { UpstreamClient } from './kernel/upstream/upstream-client.js';
import { HTTP_EDGE, HttpEdge } from './kernel/http/pipeline-handler.js';
import { clientErrorHandler, serveDespiteExpectation } from './kernel/http/client-error.js';
import { upstreamDeadlines } from './features/models/routing/deadline-defaults.js';
import { providerPools } from './features/models/routing/provider-pools.js';
import { exposureWarnings } from './features/auth/exposure.js';
import { ConfigError } from './config.js';
import { KeptResources } from './kernel/engine/kept-resources.js';
import type { Logger } from './kernel/observability/logger.js';
import { parseDuration } from './kernel/config/defaults.js';
import { DEFAULT_PIPELINES_DIR } from './kernel/paths.js';
import type { Capability } from './kernel/capability.js';
import { normalizeError } from './contract/errors/normalize.js';
import { Rejection } from './contract/errors/rejection.js';
import { ROUTES } from './contract/routes.js';
import { BUILTIN_STAGES } from './stages/builtin-stages.js';
import { CAPABILITIES } from './capabilities.js';

export interface GatewayOptions {
  /** Where logs go (default stdout); tests pass a collecting stream. */
  logDestination?: DestinationStream;
  /** Capabilities to set up (default: every built-in one). */
  capabilities?: Capability[];
  /** Reloads the config file the gateway started with, as SIGHUP does (POST /v1/admin/config/reload); the command line gives it. */
  reloadFromFile?: () => Promise<ReloadOutcome>;
}

export interface Gateway {
  /** The listening server (a reload that changes server.host, port or TLS replaces it). */
  readonly server: Server;
  /** The services of the config serving new requests. */
  readonly services: GatewayServices;
  /** The compiled pipeline of each route, by route key ("POST /v1/chat/completions", "*" for unknown routes). */
  readonly pipelines: Map<string, CompiledPipeline>;
  /** The config serving new requests. */
  readonly config: GatewayConfig;
  /** Opens the port, then starts background work (tool servers, batches); resolves with the base URL. */
  listen(port?: number, host?: string): Promise<string>;
  /**
   * Builds `config` whole (capabilities, plugins, pipelines) and swaps it in for new requests;
   * requests in flight finish on the config they started with. Throws (ConfigError, PipelineError,
   * a listen error) and keeps the running config when anything is wrong.
   */
  reload(config: GatewayConfig): Promise<void>;
  /** Stops accepting, lets in-flight requests and streams finish (up to the grace period), closes everything. */
  close(graceMs?: number): Promise<void>;
  readonly url: string;
  /** The address and port the server listens on (empty before listen). */
  readonly listenAddress: string;
}

function tlsOptions(config: GatewayConfig) {
  const ssl = config.server?.ssl;
  if (!ssl?.enabled) return undefined;
  const options: Record<string, unknown> = { cert: readFileSync(ssl.cert!), key: readFileSync(ssl.key!) };
  if (config.auth?.enabled && config.auth.type === 'mtls' && config.auth.ca) {
    options.ca = readFileSync(config.auth.ca);
    options.requestCert = true;
    options.rejectUnauthorized = config.auth.requireClientCert !== false;
  }
  return options;
}

/** What the listener depends on: a reload that changes none of it keeps the listening socket. */
function listenerSettings(config: GatewayConfig): unknown {
  const mtls = config.auth?.enabled && config.auth.type === 'mtls' ? { ca: config.auth.ca, requireClientCert: config.auth.requireClientCert } : undefined;
  return JSON.stringify({ host: config.server?.host ?? '0.0.0.0', port: config.server?.port ?? 8787, ssl: config.server?.ssl ?? null, mtls: mtls ?? null });
}

/** What every request context reaches: how `ctx.reject` builds its error (the contract's body). */
const CONTEXT_EDGE: ContextEdge = { rejection: (status, detail) => new Rejection(status, detail) };

/** One config, built whole: its services, compiled pipelines and HTTP edge, and the requests it serves. */
interface Generation {
  config: GatewayConfig;
  services: GatewayServices;
  pipelines: Map<string, CompiledPipeline>;
  edge: HttpEdge;
  lifecycle: Lifecycle;
  /** Requests started on this config and not yet answered. */
  active: number;
  /** Called when `active` drops to 0. */
  onIdle?: () => void;
}

/**
 * Builds a config's services and the extension kinds, the capabilities, plugins and the
 * compiled pipelines of every route. Resources the previous generation holds (store, tool
 * servers, Redis, counters) are taken over where their settings are unchanged.
 */
async function buildGeneration(
  config: GatewayConfig,
  capabilities: Capability[],
  logger: Logger,
  metrics: Metrics,
  configAdmin: ConfigAdmin,
  previous?: Generation,
): Promise<Generation> {
  // Every secret of the config is known to the one redactor before anything can log or answer.
  registerSecrets(configSecrets(config));
  const kinds = new ExtensionKinds();
  const stages = kinds.add(new StageRegistry());
  for (const stage of BUILTIN_STAGES) stages.register(stage);
  const services = new GatewayServices(config, logger, metrics, new UpstreamClient({ ...upstreamDeadlines(config), pools: providerPools(config) }), kinds, (err, upstream) =>
    normalizeError(err, upstream),
  );
  services.resources = new KeptResources(previous?.services.resources);
  services.readiness.set('config', () => true);
  const lifecycle: Lifecycle = services.provide(LIFECYCLE, { draining: false });
  services.provide(CONFIG_ADMIN, configAdmin);
  let pipelines: Map<string, CompiledPipeline>;
  try {
    // Traces, when observability.otlp.endpoint is set (before the capabilities, which trace their work).
    await setupTracing(services);
    for (const capability of capabilities) await capability.setup?.(services);
    const pluginProblems = await loadPlugins(config.plugins ?? [], kinds);
    if (pluginProblems.length) throw new ConfigError(pluginProblems, 'plugins');
    for (const capability of capabilities) await capability.prepare?.(services);
    pipelines = compilePipelines({ shippedDir: DEFAULT_PIPELINES_DIR, userDir: config.pipelines?.dir, routes: ROUTES, stages, services });
  } catch (err) {
    await runClosers(services, () => services.resources.abandon());
    throw err;
  }
  const edge = services.provide(HTTP_EDGE, new HttpEdge(services, ROUTES, pipelines, CONTEXT_EDGE));
  return { config, services, pipelines, edge, lifecycle, active: 0 };
}

/** Resolves when the generation has no request in flight, or after `ms`. */
function idle(gen: Generation, ms: number): Promise<void> {
  if (gen.active === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    timer.unref();
    function done() {
      clearTimeout(timer);
      gen.onIdle = undefined;
      resolve();
    }
    gen.onIdle = done;
  });
}

/**
 * Builds the whole gateway from a validated config: the first generation (services, pipelines,
 * HTTP edge) and the HTTP server, whose requests go to the generation current when they arrive.
 */
export async function createGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<Gateway> {
  const logger = createLogger(config.logging?.level ?? 'info', options.logDestination);
  const metrics = new Metrics();
  const capabilities = options.capabilities ?? CAPABILITIES;
  const configAdmin: ConfigAdmin = {
    validate: (text, source) => checkConfigText(text, source, current.config),
    ...(options.reloadFromFile ? { reload: options.reloadFromFile } : {}),
  };
  let current = await buildGeneration(config, capabilities, logger, metrics, configAdmin);
  /** Generations replaced by a reload whose requests are still finishing. */
  const retiring = new Set<Promise<void>>();
  const grace = () => parseDuration(current.config.server?.shutdownGracePeriod ?? '30s');

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const gen = current;
    gen.active++;
    // `on`, not `once` (here and for sockets): close comes once, and `once` keeps a wrapper per listener.
    res.on('close', () => {
      if (--gen.active === 0) gen.onIdle?.();
    });
    // While draining, the connection: close header is set before any stage answers.
    if (gen.lifecycle.draining) res.setHeader('connection', 'close');
    gen.edge.handle(req, res);
  };

  interface Listener {
    server: Server;
    sockets: Set<Socket>;
    settings: unknown;
    tls: boolean;
  }
  const makeListener = (cfg: GatewayConfig): Listener => {
    const tls = tlsOptions(cfg);
    const server: Server = tls ? (createHttpsServer(tls) as unknown as Server) : createHttpServer();
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    server.requestTimeout = 0;
    // A request Node cannot parse (headers too large, a control character in a header) gets the
    // contract's body; an Expect value other than 100-continue is ignored.
    server.on('clientError', clientErrorHandler(current.services.mapError));
    server.on('checkExpectation', serveDespiteExpectation(server));
    const sockets = new Set<Socket>();
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    server.on('request', onRequest);
    return { server, sockets, settings: listenerSettings(cfg), tls: Boolean(tls) };
  };
  const openListener = async (listener: Listener, port: number, host: string): Promise<void> => {
    await new Promise<void>((resolve, reject) => {
      listener.server.once('error', reject);
      listener.server.listen({ port, host, backlog: config.server?.backlog ?? 4096 }, () => {
        listener.server.off('error', reject);
        resolve();
      });
    });
  };
  /**
   * Opens `fresh` on `port` and `host` while `running` serves. Where the running listener holds
   * that port (a reload that changes only server.host or TLS: the two binds overlap), the port is
   * handed over: the running listener stops accepting (its connections carry on), the fresh one
   * listens, and should that fail the running one listens again where it was.
   */
  const openBeside = async (fresh: Listener, running: Listener, port: number, host: string): Promise<void> => {
    try {
      await openListener(fresh, port, host);
      return;
    } catch (err) {
      const was = running.server.address() as AddressInfo | null;
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || was?.port !== port) throw err;
      running.server.close();
      try {
        await openListener(fresh, port, host);
      } catch (again) {
        await openListener(running, was.port, was.address);
        throw again;
      }
    }
  };
  /** Stops accepting on a listener; its open requests finish, idle keep-alive connections close. */
  const closeListener = (listener: Listener): Promise<void> => {
    const closed = new Promise<void>((resolve) => listener.server.close(() => resolve()));
    listener.server.closeIdleConnections();
    return closed;
  };

  let listener = makeListener(config);
  const closedListeners = new Set<Listener>();
  let url = '';
  let listenAddress = '';
  let opening: Promise<unknown> = Promise.resolve();
  let closing = false;
  const describeAddress = (l: Listener, host: string) => {
    const address = l.server.address() as AddressInfo;
    const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
    const bracket = (h: string) => (h.includes(':') ? `[${h}]` : h);
    url = `${l.tls ? 'https' : 'http'}://${bracket(shownHost)}:${address.port}`;
    listenAddress = `${bracket(address.address)}:${address.port}`;
  };

  /** A replaced generation retires once its requests finished (or the grace period passed). */
  const retire = (old: Generation, successor: Generation) => {
    const done = (async () => {
      await idle(old, grace());
      await runClosers(old.services, () => old.services.resources.retire(successor.services.resources), false);
    })();
    retiring.add(done);
    void done.finally(() => retiring.delete(done));
  };

  // One object per process: its accessors' hidden class is made once.
  /* eslint-disable no-restricted-syntax */
  const gateway: Gateway = {
    get server() {
      return listener.server;
    },
    get services() {
      return current.services;
    },
    get pipelines() {
      return current.pipelines;
    },
    get config() {
      return current.config;
    },
    get url() {
      return url;
    },
    get listenAddress() {
      return listenAddress;
    },
    /* eslint-enable no-restricted-syntax */
    async listen(port = config.server?.port ?? 8787, host = config.server?.host ?? '0.0.0.0') {
      opening = openListener(listener, port, host);
      await opening;
      describeAddress(listener, host);
      for (const line of exposureWarnings(current.config, host)) logger.warn({ host }, line);
      if (closing) return url;
      const gen = current;
      for (const capability of capabilities) await capability.start?.(gen.services);
      for (const capability of capabilities) capability.activate?.(gen.services);
      return url;
    },
    async reload(next) {
      if (closing) throw new ConfigError(['the gateway is shutting down'], 'reload');
      const previous = current;
      const gen = await buildGeneration(next, capabilities, logger, metrics, configAdmin, previous);
      // A changed listen address (or TLS) opens the new listener before the old one closes (on the same port, it takes the port over).
      let replaced: Listener | undefined;
      if (listenerSettings(next) !== listener.settings && url) {
        let fresh: Listener;
        try {
          fresh = makeListener(next);
          const host = next.server?.host ?? '0.0.0.0';
          await openBeside(fresh, listener, next.server?.port ?? 8787, host);
          replaced = listener;
          listener = fresh;
          describeAddress(fresh, host);
        } catch (err) {
          await runClosers(gen.services, () => gen.services.resources.abandon(), false);
          const code = (err as NodeJS.ErrnoException).code;
          throw new ConfigError([`server.${code === 'EADDRINUSE' || code === 'EACCES' ? 'port' : 'ssl'}: cannot listen (${(err as Error).message})`], 'reload');
        }
      }
      try {
        for (const capability of capabilities) await capability.start?.(gen.services);
      } catch (err) {
        logger.warn({ err: (err as Error).message }, 'a reloaded capability failed to start');
      }
      if (next.logging?.level && next.logging.level !== logger.level) logger.level = next.logging.level;
      current = gen;
      for (const capability of capabilities) capability.activate?.(gen.services);
      retire(previous, gen);
      if (replaced) {
        closedListeners.add(replaced);
        void closeListener(replaced).finally(() => closedListeners.delete(replaced!));
      }
    },
    async close(graceMs = grace()) {
      closing = true;
      await opening.catch(() => undefined);
      const gen = current;
      gen.lifecycle.draining = true;
      for (const capability of capabilities) await Promise.resolve(capability.drain?.(gen.services)).catch(() => undefined);
      const listeners = [listener, ...closedListeners];
      const closed = Promise.all(listeners.map((l) => (l.server.listening ? closeListener(l) : Promise.resolve())));
      const deadline = Date.now() + graceMs;
      const inFlight = () => gen.active + [...retiring].length;
      while (inFlight() > 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 25));
        for (const l of listeners) l.server.closeIdleConnections();
      }
      for (const l of listeners) for (const socket of l.sockets) socket.destroy();
      await closed;
      await Promise.all(retiring);
      await runClosers(gen.services, () => gen.services.resources.closeAll());
    },
  };
  return gateway;
}

/**
 * Closes a generation: plugins' closers (last registered first), then its kept resources as
 * `resources` says (the batch runner finishes its lines first, the store closes last), then the
 * upstream client those used.
 */
async function runClosers(services: GatewayServices, resources: () => Promise<void>, flush = true): Promise<void> {
  for (const close of [...services.closers].reverse()) {
    try {
      await close();
    } catch (err) {
      services.logger.warn({ err: (err as Error).message }, 'error while closing');
    }
  }
  services.closers.length = 0;
  await resources().catch((err) => services.logger.warn({ err: (err as Error).message }, 'error while closing'));
  await services.upstream.close().catch(() => undefined);
  if (flush) services.logger.flush?.();
}

export { ConfigError, PipelineError };
