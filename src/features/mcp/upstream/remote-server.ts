import { AsyncLocalStorage } from 'node:async_hooks';
import { Agent } from 'undici';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Identity } from '../../../kernel/engine/context.js';
import type { IdentityForwardingConfig, McpServerConfig } from '../../../generated/gateway.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import { identityHeaders } from '../identity-forwarding.js';
import { undiciFetch } from './undici-fetch.js';
import { UpstreamServer } from './upstream-server.js';

const NETWORK_FAILURES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * A remote Streamable HTTP tool server: one shared MCP session opened by the gateway with the
 * configured `headers` (its credentials). The caller's identity goes on each HTTP request of a
 * call as X-User-* headers (and the signature): the SDK transport takes a custom fetch, and the
 * headers of the call in progress reach it through AsyncLocalStorage, so concurrent callers on
 * the shared session each send their own. Nothing of the caller's request (credential, headers)
 * is ever copied.
 */
export class RemoteServer extends UpstreamServer {
  readonly kind = 'remote' as const;
  readonly secrets: string[];
  private readonly callHeaders = new AsyncLocalStorage<Record<string, string>>();
  private readonly fetch: FetchLike;
  /** The connection pool to the server (the SDK client's session and relayed sessions share it). */
  readonly agent = new Agent({ keepAliveTimeout: 30_000, connections: 128 });
  private readonly configured: [string, string][];

  constructor(
    name: string,
    config: McpServerConfig,
    logger: Logger,
    private readonly forwarding: IdentityForwardingConfig,
  ) {
    super(name, config, logger);
    this.secrets = Object.values(config.headers ?? {});
    const configured = Object.entries(config.headers ?? {});
    this.configured = configured;
    const send = undiciFetch(this.agent);
    this.fetch = (url, init) => {
      const headers = new Headers(init?.headers);
      for (const [k, v] of configured) headers.set(k, v);
      // The caller's identity (computed by the gateway) wins over a configured header of the same name.
      const identity = this.callHeaders.getStore();
      if (identity) for (const [k, v] of Object.entries(identity)) headers.set(k, v);
      return send(url, { ...init, headers });
    };
  }

  protected createTransport(): Transport {
    return new StreamableHTTPClientTransport(new URL(this.config.url!), {
      fetch: this.fetch,
      reconnectionOptions: { initialReconnectionDelay: 1000, maxReconnectionDelay: 30_000, reconnectionDelayGrowFactor: 2, maxRetries: 5 },
    });
  }

  get url(): string {
    return this.config.url!;
  }

  /** The headers a relayed request carries to the server: the configured ones, then the caller's identity. */
  relayHeaders(identity: Identity, computed?: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of this.configured) out[k.toLowerCase()] = v;
    const values = computed ?? identityHeaders(identity, this.forwarding);
    for (const k in values) out[k.toLowerCase()] = values[k]!;
    return out;
  }

  /** The gateway's own session with the server (for callers that keep none), once connected. */
  get sharedSession(): { sessionId?: string; protocolVersion?: string } | undefined {
    const transport = this.client?.transport as StreamableHTTPClientTransport | undefined;
    if (this.status !== 'ready' || !transport) return undefined;
    return { sessionId: transport.sessionId, protocolVersion: transport.protocolVersion };
  }

  /** Opens a new shared session now (the server forgot ours). */
  async renewSharedSession(): Promise<void> {
    await this.reopenNow();
  }

  protected identityMeta(): undefined {
    return undefined;
  }

  protected withIdentity<T>(identity: Identity, fn: () => Promise<T>): Promise<T> {
    const headers = identityHeaders(identity, this.forwarding);
    return this.callHeaders.run(headers, fn);
  }

  override async close(): Promise<void> {
    await super.close();
    await this.agent.close().catch(() => undefined);
  }

  protected override isSessionLost(err: unknown): boolean {
    return err instanceof StreamableHTTPError && err.code === 404;
  }

  protected override isConnectionFailure(err: unknown): boolean {
    // The server forgot our session (404) or cannot be reached at all: open a new session.
    if (err instanceof StreamableHTTPError) return err.code === 404;
    const code = String((err as { code?: unknown })?.code ?? '');
    return NETWORK_FAILURES.has(code) || (code.startsWith('UND_ERR') && code !== 'UND_ERR_ABORTED');
  }
}
