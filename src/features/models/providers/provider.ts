import type { IncomingHttpHeaders } from 'node:http';
import type { GatewayError } from '../../../contract/errors/gateway-error.js';
import type { Operation } from '../../../contract/operations.js';
import type { StreamPart } from '../../../contract/stream-parts.js';
import type { FramedEvent } from '../../../contract/framing.js';
import type { ProviderSettings } from '../../../generated/gateway.js';
import type { CacheConfig, RetryConfig } from '../../../generated/routing.js';
import type { UpstreamRequest } from './shared/upstream-request.js';
import type { HeaderPassing } from './shared/upstream-headers.js';
import type { ProviderField } from './shared/provider-fields.js';
import type { JsonObject } from '../../../contract/json.js';

export type { ProviderSettings, FramedEvent, UpstreamRequest, ProviderField };

/** One upstream target for the current attempt, with every inherited setting resolved. */
export interface ResolvedTarget {
  provider: string;
  apiKey?: string;
  /** Replaces the provider's base URL for this request (custom_host). */
  baseUrl?: string;
  /** `baseUrl` is an address the caller chose: nothing the operator set (key, providers.<id>.headers) goes there. */
  callerHost?: true;
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
  /** The held credential whose key and settings the target uses (credential: <name>), for budgets and the ledger. */
  credential?: string;
}

/** What a provider adapter gets to build one upstream call. */
export interface ProviderCall {
  operation: Operation;
  /** The request body after override_params (JSON routes); undefined for bodiless routes. */
  body: JsonObject | undefined;
  /** The body bytes as received, while nothing changed them (send these instead of re-serializing). */
  rawBody?: Buffer;
  stream: boolean;
  target: ResolvedTarget;
  apiKey: string | undefined;
  /** Path parameters (file_id, batch_id, job_id). */
  params: Record<string, string>;
  query: URLSearchParams;
  /** Whether the caller's URL carried a query (false: `query` is empty, and need not be made). */
  hasQuery?: boolean;
  /** The caller's headers (forward_headers are applied by forward). Uploads come checked in `body` (see shared/upload-form.ts). */
  headers: IncomingHttpHeaders;
  /** Aborted when the caller goes away or the deadline passes. */
  signal: AbortSignal;
}

/**
 * Maps one framed event to parts. `end`, when present, is called once after the upstream body
 * ended without a failure: the parts a provider can only give then (a stream whose last event
 * does not say it is the last).
 */
export type StreamMapper = ((event: FramedEvent) => StreamPart | StreamPart[] | undefined) & {
  end?: () => StreamPart[] | undefined;
};

export interface StreamAdapter {
  /** How the upstream frames its stream; parsed centrally by protocol/framing. */
  framing: 'sse' | 'ndjson' | 'aws-eventstream';
  /** Makes the per-request mapper (it may keep state across events). */
  createMapper(call: ProviderCall): StreamMapper;
  /**
   * The upstream's events are already the answer's (OpenAI chat or text completion chunks, which
   * the mapper passes as they are): the bytes may pass through unparsed where no stage reads the parts.
   */
  passesThrough?: boolean;
}

export interface OperationAdapter {
  /** Builds the upstream request (may be async: token exchange, request signing). */
  request(call: ProviderCall, provider: ProviderInstance): UpstreamRequest | Promise<UpstreamRequest>;
  /** Maps a 2xx JSON answer to the OpenAI shape. Absent: the bytes pass through untouched. */
  response?(body: unknown, call: ProviderCall): unknown;
  /** When present, `response` runs only for answers whose bytes it accepts; the others pass through untouched. */
  responseNeeded?(raw: Buffer): boolean;
  /** The answer is not JSON (audio, file content, subtitles): body and content type pass through. */
  binary?: boolean | ((call: ProviderCall) => boolean);
  /** How streamed answers are read; absent: the operation does not stream. */
  stream?: StreamAdapter;
  /**
   * The operation takes one upstream call per part (a model that embeds one text per call):
   * returns each call's body (given to `request` as call.body), or undefined for one call.
   * `response` then gets the list of answers, in order, with the whole request as call.body.
   */
  fanOut?(body: JsonObject | undefined): unknown[] | undefined;
  /** The operation is served through the provider's chat translation, not an API of its own. */
  viaChat?: true;
  /**
   * The upstream takes OpenAI's request body as it is (OpenAI's API and the compatible ones):
   * request shapes the gateway does not translate reach it untouched. Chat adapters without it
   * are translations, given requests through providers/shared/translated-chat.ts.
   */
  takesOpenAIBody?: true;
}

/** A provider as created for one gateway config. */
export interface ProviderInstance {
  id: string;
  baseUrl: string;
  /**
   * The provider's own public hosts, when its address depends on the request (a customer's
   * resource, a region). Without a configured baseUrl, requests go only to these (https); a
   * provider without `hosts` goes only to the origin of `baseUrl`.
   */
  hosts?: RegExp;
  settings: ProviderSettings;
  /** false for providers that run without a key (ollama, vllm). */
  requiresKey: boolean;
  /** The provider-specific target fields it reads (azure_*, aws_*, vertex_*): what a held credential may carry beside api_key. */
  settingFields?: readonly string[];
  operations: Partial<Record<Operation, OperationAdapter>>;
  /** The provider's error module: an upstream error answer -> a gateway error. */
  mapError(status: number, body: Buffer, headers: IncomingHttpHeaders): GatewayError;
  /** Which upstream answer headers reach the caller, under which names (request id, rate limits). */
  passHeaders?: HeaderPassing;
  /**
   * Counts the input tokens of an OpenAI chat request (for /v1/messages/count_tokens on a
   * provider without Anthropic's API); its `response` answers `{ input_tokens }`.
   */
  tokenCount?: OperationAdapter;
}

/**
 * The one shape of a provider (an extension of kind `provider`): a name, a description, its
 * settings schema (providers.<id>), a factory.
 */
export interface ProviderDefinition {
  name: string;
  displayName: string;
  description?: string;
  schema: Record<string, unknown>;
  /**
   * The settings the provider reads beside its key (routing-target fields, x-gateway-<field>
   * headers): which are secrets, which become headers, the pattern of those that become part of
   * an address. Generic code reads these declarations (shared/provider-fields.ts).
   */
  fields?: readonly ProviderField[];
  create(settings: ProviderSettings): ProviderInstance;
}
