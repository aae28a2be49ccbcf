import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { GatewayError } from '../errors/gateway-error.js';
import type { Operation } from '../engine/operations.js';
import type { ResolvedTarget } from '../engine/context.js';
import type { StreamPart } from '../protocol/stream-parts.js';
import type { UpstreamRequest } from '../upstream/upstream-client.js';
import type { ProviderSettings } from '../generated/gateway.js';

export type { ProviderSettings };

/** What a provider adapter gets to build one upstream call. */
export interface ProviderCall {
  operation: Operation;
  /** The request body after override_params (JSON routes); undefined for bodiless routes. */
  body: any;
  /** The body bytes as received, while nothing changed them (send these instead of re-serializing). */
  rawBody?: Buffer;
  stream: boolean;
  target: ResolvedTarget;
  apiKey: string | undefined;
  /** Path parameters (file_id, batch_id, job_id). */
  params: Record<string, string>;
  query: URLSearchParams;
  /** The caller's headers (content-type of uploads; forward_headers are applied by forward). */
  headers: IncomingHttpHeaders;
  /** The caller's request, for bodies streamed through (multipart uploads). */
  req: IncomingMessage;
  /** Aborted when the caller goes away or the deadline passes. */
  signal: AbortSignal;
}

/** A framed upstream stream event, whatever the framing. */
export type FramedEvent = { event?: string; data: string } | { headers: Record<string, string>; payload: Buffer };

export interface StreamAdapter {
  /** How the upstream frames its stream; parsed centrally by protocol/framing. */
  framing: 'sse' | 'ndjson' | 'aws-eventstream';
  /** Makes the per-request mapper (it may keep state across events). */
  createMapper(call: ProviderCall): (event: FramedEvent) => StreamPart | StreamPart[] | undefined;
}

export interface OperationAdapter {
  /** Builds the upstream request (may be async: token exchange, request signing). */
  request(call: ProviderCall, provider: ProviderInstance): UpstreamRequest | Promise<UpstreamRequest>;
  /** Maps a 2xx JSON answer to the OpenAI shape. Absent: the bytes pass through untouched. */
  response?(body: any, call: ProviderCall): unknown;
  /** The answer is not JSON (audio, file content, subtitles): body and content type pass through. */
  binary?: boolean | ((call: ProviderCall) => boolean);
  /** How streamed answers are read; absent: the operation does not stream. */
  stream?: StreamAdapter;
  /**
   * The operation takes one upstream call per part (a model that embeds one text per call):
   * returns each call's body (given to `request` as call.body), or undefined for one call.
   * `response` then gets the list of answers, in order, with the whole request as call.body.
   */
  fanOut?(body: any): unknown[] | undefined;
}

/** A provider as created for one gateway config. */
export interface ProviderInstance {
  id: string;
  baseUrl: string;
  settings: ProviderSettings;
  /** false for providers that run without a key (ollama, vllm). */
  requiresKey: boolean;
  operations: Partial<Record<Operation, OperationAdapter>>;
  /** The provider's error module: an upstream error answer -> a gateway error. */
  mapError(status: number, body: Buffer, headers: IncomingHttpHeaders): GatewayError;
}

/** The one shape of a provider: a name, its settings schema (providers.<id>), a factory. */
export interface ProviderDefinition {
  name: string;
  displayName: string;
  schema: Record<string, unknown>;
  create(settings: ProviderSettings): ProviderInstance;
}
