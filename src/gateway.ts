import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import express from 'express';
import type { GatewayConfig } from './generated/gateway.js';
import type { DestinationStream } from 'pino';
import { createLogger } from './observability/logger.js';
import { Metrics } from './observability/metrics.js';
import { ProviderRegistry } from './providers/provider-registry.js';
import { BUILTIN_PROVIDERS } from './providers/builtin-providers.js';
import { StageRegistry } from './engine/stage-registry.js';
import { BUILTIN_STAGES } from './stages/builtin-stages.js';
import { compilePipelines, PipelineError } from './engine/pipeline-compiler.js';
import { loadPlugins } from './engine/plugin-loader.js';
import type { GatewayServices } from './engine/services.js';
import { UpstreamClient } from './upstream/upstream-client.js';
import { PROVIDER_ROUTES } from './http/route-table.js';
import { createPipelineHandler } from './http/pipeline-handler.js';
import { mountOpsRoutes } from './http/ops-routes.js';
import { errorHandler, notFoundHandler } from './http/express-errors.js';
import { ConfigError } from './config/load-config.js';
import { parseDuration } from './config/defaults.js';
import { DEFAULT_PIPELINES_DIR } from './paths.js';
import { CAPABILITIES } from './capabilities.js';
import type { Capability } from './capability.js';

export interface GatewayOptions {
  /** Where logs go (default stdout); tests pass a collecting stream. */
  logDestination?: DestinationStream;
  /** Capabilities to set up (default: every built-in one). */
  capabilities?: Capability[];
}

export interface Gateway {
  server: Server;
  services: GatewayServices;
  /** Starts listening; resolves with the base URL. */
  listen(port?: number, host?: string): Promise<string>;
  /** Stops accepting, lets in-flight requests and streams finish (up to the grace period), closes everything. */
  close(graceMs?: number): Promise<void>;
  readonly url: string;
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

/** Builds the whole gateway from a validated config: services, capabilities, plugins, pipelines, routes. */
export async function createGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<Gateway> {
  const logger = createLogger(config.logging?.level ?? 'info', options.logDestination);
  const stages = new StageRegistry();
  const providers = new ProviderRegistry();
  for (const stage of BUILTIN_STAGES) stages.register(stage);
  for (const provider of BUILTIN_PROVIDERS) providers.register(provider);
  const services: GatewayServices = {
    config,
    logger,
    metrics: new Metrics(),
    providers,
    upstream: new UpstreamClient(),
    stages,
    readiness: new Map([['config', () => true]]),
    closers: [],
    extensions: new Map(),
  };
  const capabilities = options.capabilities ?? CAPABILITIES;
  try {
    for (const capability of capabilities) await capability.setup?.(services);
    const pluginProblems = await loadPlugins(config.plugins ?? [], stages, providers);
    if (pluginProblems.length) throw new ConfigError(pluginProblems, 'plugins');
    const providerProblems = providers.instantiate(config);
    if (providerProblems.length) throw new ConfigError(providerProblems, 'providers');
  } catch (err) {
    await runClosers(services);
    throw err;
  }
  let pipelines;
  try {
    pipelines = compilePipelines(config.pipelines?.dir ?? DEFAULT_PIPELINES_DIR, stages, services);
    // Work the gateway runs itself (batch lines) goes through the same compiled chains.
    services.extensions.set('pipelines', pipelines);
  } catch (err) {
    await runClosers(services);
    throw err;
  }

  let draining = false;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  mountOpsRoutes(app, services, () => draining);
  for (const capability of capabilities) capability.routes?.(app, services);
  const finishHooks = capabilities.flatMap((c) => (c.onFinish ? [c.onFinish] : []));
  // Provider routes without path parameters are looked up in one Map before express is
  // reached: the hot path pays for no router. Every route is also mounted on express, which
  // serves the parameterised ones and any spelling the Map does not hold (trailing slash...).
  const directRoutes = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>();
  for (const route of PROVIDER_ROUTES) {
    const pipeline = pipelines.get(route.key);
    if (!pipeline) continue;
    const handler = createPipelineHandler(route, pipeline.run, services, finishHooks);
    const method = route.method.toLowerCase() as 'get' | 'post' | 'delete';
    app[method](route.path, handler as unknown as express.RequestHandler);
    if (!route.path.includes(':')) directRoutes.set(`${route.method} ${route.path}`, handler);
  }
  app.use(notFoundHandler);
  app.use(errorHandler(logger));

  const tls = tlsOptions(config);
  const server: Server = tls ? (createHttpsServer(tls) as unknown as Server) : createHttpServer();
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 0;
  const sockets = new Set<Socket>();
  let active = 0;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  // Counts in-flight requests; registered before the app so that, while draining, the
  // connection: close header is set before any handler (even a synchronous one) answers.
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    active++;
    res.once('close', () => active--);
    if (draining) res.setHeader('connection', 'close');
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const direct = directRoutes.get(`${req.method} ${q < 0 ? url : url.slice(0, q)}`);
    if (direct) direct(req, res);
    else app(req, res);
  });

  let url = '';
  const gateway: Gateway = {
    server,
    services,
    get url() {
      return url;
    },
    async listen(port = config.server?.port ?? 8787, host = config.server?.host ?? '0.0.0.0') {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      const address = server.address() as AddressInfo;
      const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
      url = `${tls ? 'https' : 'http'}://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${address.port}`;
      for (const capability of capabilities) await capability.start?.(services);
      return url;
    },
    async close(graceMs = parseDuration(config.server?.shutdownGracePeriod ?? '30s')) {
      draining = true;
      for (const capability of capabilities) await Promise.resolve(capability.drain?.(services)).catch(() => undefined);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = Date.now() + graceMs;
      while (active > 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 25));
        server.closeIdleConnections();
      }
      for (const socket of sockets) socket.destroy();
      await closed;
      await runClosers(services);
    },
  };
  return gateway;
}

async function runClosers(services: GatewayServices): Promise<void> {
  for (const close of [...services.closers].reverse()) {
    try {
      await close();
    } catch (err) {
      services.logger.warn({ err: (err as Error).message }, 'error while closing');
    }
  }
  services.closers.length = 0;
  await services.upstream.close().catch(() => undefined);
  services.logger.flush?.();
}

export { ConfigError, PipelineError };
