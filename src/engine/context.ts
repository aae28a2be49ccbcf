import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { GatewayError } from '../errors/gateway-error.js';
import type { StreamPart } from '../protocol/stream-parts.js';
import type { RouteSpec } from '../http/route-table.js';
import type { RetryConfig, CacheConfig } from '../generated/routing.js';

/** Who is calling, when the caller sent a gateway credential (token, config key, OAuth, cert). */
export interface Identity {
  /** 'anonymous': /mcp with auth disabled (no credential checked). */
  kind: 'token' | 'api-key' | 'oauth' | 'mtls' | 'admin' | 'anonymous';
  /** Stable id of the credential (token id, key hash, subject). */
  id: string;
  user?: string;
  email?: string;
  name?: string;
  team?: string;
  roles?: string[];
  organization?: string;
  scopes?: string[];
  permissions?: { servers?: string[]; tools?: string[] };
}

/** One upstream target for the current attempt, with every inherited setting resolved. */
export interface ResolvedTarget {
  provider: string;
  apiKey?: string;
  /** Replaces the provider's base URL for this request (custom_host). */
  baseUrl?: string;
  /** Provider-specific fields (azure_*, aws_*, vertex_*). */
  options: Record<string, unknown>;
  overrideParams?: Record<string, unknown>;
  forwardHeaders?: string[];
  retry?: RetryConfig;
  requestTimeout?: number;
  firstByteTimeout?: number;
  idleTimeout?: number;
  inputGuardrails?: string[];
  outputGuardrails?: string[];
  cache?: CacheConfig;
  /** Index path of this target in the routing config ("0", "1.2"); undefined without a config. */
  index?: string;
}

export interface AttemptRecord {
  provider: string;
  targetIndex?: string;
  status?: number;
  code?: string;
  message?: string;
  durationMs: number;
}

export type GatewayResponse =
  | {
      kind: 'json';
      status: number;
      headers?: Record<string, string>;
      /** Upstream bytes passed through untouched, when nothing had to change. */
      raw?: Buffer;
      /** The answer as an object (parsed lazily from `raw` by `responseJson`). */
      body?: unknown;
    }
  | {
      kind: 'stream';
      status: number;
      headers?: Record<string, string>;
      /** Which OpenAI chunk object the edge writes. */
      format: 'chat' | 'text';
      includeUsage: boolean;
      parts: AsyncIterable<StreamPart>;
    }
  | {
      kind: 'binary';
      status: number;
      headers?: Record<string, string>;
      contentType: string;
      body: Readable | Buffer;
    };

/** Everything a request carries through its pipeline. */
export interface GatewayContext {
  readonly id: string;
  /** performance.now() when the request arrived. */
  readonly startedAt: number;
  readonly route: RouteSpec;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly headers: IncomingHttpHeaders;
  readonly params: Record<string, string>;
  readonly query: URLSearchParams;
  /** Aborted when the caller disconnects: no upstream call or retry outlives the caller. */
  readonly signal: AbortSignal;
  debug: boolean;
  /** Parsed JSON body (or multipart fields); `undefined` until read. */
  body: any;
  /** The JSON body bytes as received; sent upstream as they are while `bodyChanged` is false. */
  rawBody?: Buffer;
  bodyChanged: boolean;
  bodyRead: boolean;
  identity?: Identity;
  /** The provider named by the x-gateway-provider header, if any. */
  providerHeader?: string;
  /** The provider key from x-gateway-api-key or Authorization. */
  providerKey?: string;
  target?: ResolvedTarget;
  attempts: AttemptRecord[];
  retryCount: number;
  /** Monotonic deadline (performance.now() based) for the whole request, when one is set. */
  deadline?: number;
  response?: GatewayResponse;
  error?: GatewayError;
  /** Headers added to whatever the answer is (rate-limit headers, cache status, verdicts). */
  responseHeaders: Record<string, string>;
  /** Credentials seen in this request; scrubbed from every error and log line. */
  secrets: string[];
  /** Free space for plugins and stages. */
  state: Record<string, unknown>;
}

export function parseBooleanHeader(value: string | string[] | undefined): boolean {
  const v = Array.isArray(value) ? value[0] : value;
  return v === 'true' || v === '1';
}

export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}
