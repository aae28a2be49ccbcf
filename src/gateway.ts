import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import type { GatewayConfig } from './generated/gateway.js';
import type { DestinationStream } from 'pino';
import { createLogger } from './kernel/observability/logger.js';
import { registerSecrets } from './kernel/errors/redact.js';
import { configSecrets } from './kernel/config/config-secrets.js';
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
import { exposureWarnings } from './features/auth/exposure.js';
import { ConfigError } from './kernel/config/load-config.js';
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
}

export interface Gateway {
  server: Server;
  services: GatewayServices;
  /** The compiled pipeline of each route, by route key ("POST /v1/chat/completions", "*" for unknown routes). */
  pipelines: Map<string, CompiledPipeline>;
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

/** What every request context reaches: how `ctx.reject` builds its error (the contract's body). */
const CONTEXT_EDGE: ContextEdge = { rejection: (status, detail) => new Rejection(status, detail) };

/**
 * Builds the whole gateway from a validated config: services and the extension kinds, the
 * capabilities, plugins, the compiled pipelines of every route, the HTTP edge and server.
 */
export async function createGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<Gateway> {
  // Every secret of the config is known to the one redactor before anything can log or answer.
  registerSecrets(configSecrets(config));
  const logger = createLogger(config.logging?.level ?? 'info', options.logDestination);
  const kinds = new ExtensionKinds();
  const stages = kinds.add(new StageRegistry());
  for (const stage of BUILTIN_STAGES) stages.register(stage);
  const services = new GatewayServices(config, logger, new Metrics(), new UpstreamClient(upstreamDeadlines(config)), kinds, (err, upstream) => normalizeError(err, upstream));
  services.readiness.set('config', () => true);
  const lifecycle: Lifecycle = services.provide(LIFECYCLE, { draining: false });
  const capabilities = options.capabilities ?? CAPABILITIES;
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
    await runClosers(services);
    throw err;
  }
  const edge = services.provide(HTTP_EDGE, new HttpEdge(services, ROUTES, pipelines, CONTEXT_EDGE));

  const tls = tlsOptions(config);
  const server: Server = tls ? (createHttpsServer(tls) as unknown as Server) : createHttpServer();
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 0;
  // A request Node cannot parse (headers too large, a control character in a header) gets the
  // contract's body; an Expect value other than 100-continue is ignored.
  server.on('clientError', clientErrorHandler(services.mapError));
  server.on('checkExpectation', serveDespiteExpectation(server));
  const sockets = new Set<Socket>();
  let active = 0;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  // Counts in-flight requests; while draining, the connection: close header is set before
  // any stage answers.
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    active++;
    res.once('close', () => active--);
    if (lifecycle.draining) res.setHeader('connection', 'close');
    edge.handle(req, res);
  });

  let url = '';
  const gateway: Gateway = {
    server,
    services,
    pipelines,
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
      for (const line of exposureWarnings(config, host)) logger.warn({ host }, line);
      for (const capability of capabilities) await capability.start?.(services);
      return url;
    },
    async close(graceMs = parseDuration(config.server?.shutdownGracePeriod ?? '30s')) {
      lifecycle.draining = true;
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
