import { Agent, type Dispatcher } from 'undici';
import type { Readable } from 'node:stream';

export interface UpstreamRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer | Readable | null;
}

/** An emitter of 'abort' (the engine's CallerSignal): undici takes one as a request's signal. */
export interface AbortEmitter {
  readonly aborted: boolean;
  on(event: 'abort', listener: () => void): unknown;
  once(event: 'abort', listener: () => void): unknown;
  removeListener(event: 'abort', listener: () => void): unknown;
}

export interface SendOptions {
  /** An AbortSignal, or a cheaper emitter of 'abort'. */
  signal?: AbortSignal | AbortEmitter;
  /** ms to wait for response headers (first byte). */
  headersTimeout?: number;
  /** ms allowed between body chunks. */
  bodyTimeout?: number;
  /** The pool the request goes through: a name given its own connection limit (a provider id), else the shared one. */
  pool?: string;
}

export interface UpstreamClientOptions {
  /** Most keep-alive connections per origin of the shared pool (default 256). */
  connections?: number;
  keepAliveTimeout?: number;
  headersTimeout?: number;
  bodyTimeout?: number;
  /** Pools of their own, by name (a provider id): the most connections per origin each may open (providers.<id>.connections). */
  pools?: Record<string, number>;
}

/** Characters a URL parser would encode or cut (spaces, non-ASCII, a fragment): such an address is parsed. */
const UNUSUAL_URL = /[^\x21-\x7e]|#/;

/**
 * The origin and path of an upstream address, cut from the string (the agent's own request
 * takes them; undici's top-level request() would parse a URL object and copy the options once
 * more). An unusual address, or one without a path, is parsed as a URL parser would.
 */
function addressParts(url: string): { origin: string; path: string } {
  const scheme = url.indexOf('://');
  const slash = scheme < 0 ? -1 : url.indexOf('/', scheme + 3);
  if (slash >= 0 && !UNUSUAL_URL.test(url)) return { origin: url.slice(0, slash), path: url.slice(slash) };
  const parsed = new URL(url);
  return { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
}

/**
 * Upstream HTTP through undici's request API on keep-alive pools (one pool per origin, made
 * by the Agent). No fetch, no web streams: bodies are node streams.
 */
export class UpstreamClient {
  /** The shared pool (per origin), for every request whose pool has no limit of its own. */
  readonly agent: Agent;
  /** The pools with a connection limit of their own (providers.<id>.connections), by name. */
  private readonly pools = new Map<string, Agent>();

  /**
   * `headersTimeout` / `bodyTimeout` are the deadlines of every request that sets none of its
   * own (routing.defaults: first_byte_timeout 120 s, idle_timeout 60 s), kept by undici's own
   * timers at no cost per request.
   */
  constructor(options: UpstreamClientOptions = {}) {
    const agentOptions = (connections: number): Agent.Options => ({
      connections,
      keepAliveTimeout: options.keepAliveTimeout ?? 30_000,
      keepAliveMaxTimeout: 600_000,
      headersTimeout: options.headersTimeout ?? 120_000,
      bodyTimeout: options.bodyTimeout ?? 60_000,
      pipelining: 1,
    });
    this.agent = new Agent(agentOptions(options.connections ?? 256));
    for (const [name, connections] of Object.entries(options.pools ?? {})) this.pools.set(name, new Agent(agentOptions(connections)));
  }

  /** The pool a request named `pool` goes through. */
  agentFor(pool: string | undefined): Agent {
    return (pool !== undefined && this.pools.get(pool)) || this.agent;
  }

  send(upstream: UpstreamRequest, options: SendOptions = {}): Promise<Dispatcher.ResponseData> {
    const { origin, path } = addressParts(upstream.url);
    const agent = options.pool === undefined || this.pools.size === 0 ? this.agent : this.agentFor(options.pool);
    return agent.request({
      origin,
      path,
      method: upstream.method as Dispatcher.HttpMethod,
      headers: upstream.headers,
      body: upstream.body ?? null,
      signal: options.signal as AbortSignal | undefined,
      headersTimeout: options.headersTimeout,
      bodyTimeout: options.bodyTimeout,
    });
  }

  close(): Promise<void> {
    return Promise.all([this.agent.close(), ...[...this.pools.values()].map((agent) => agent.close())]).then(() => undefined);
  }
}
