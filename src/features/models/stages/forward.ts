import { isUpload } from '../../../kernel/http/multipart/upload-validator.js';
import { endsLikeJsonContainer, objectOf, type JsonObject } from '../../../contract/json.js';
import type { Dispatcher } from 'undici';
import type { ForwardStageConfig } from '../../../generated/stages/forward.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { defineStage } from '../../../kernel/engine/stage.js';
import type { BinaryAnswer, GatewayResponse, JsonAnswer, StreamAnswer } from '../../../kernel/engine/context.js';
import type { CallerSignal } from '../../../kernel/engine/caller-signal.js';
import type { GatewayServices } from '../../../kernel/engine/services.js';
import { BODY, BODY_CHANGED, ensureJsonBody, RAW_BODY, rawBodyWith } from '../../../kernel/engine/request-body.js';
import { redactSecrets } from '../../../kernel/errors/redact.js';
import { upstreamBodyText } from '../../../kernel/upstream/body-text.js';
import { readBody } from '../providers/shared/read-body.js';
import { badRequest, GatewayError } from '../../../contract/errors/gateway-error.js';
import { normalizeError } from '../../../contract/errors/normalize.js';
import type { OperationAdapter, ProviderCall, ProviderInstance } from '../providers/provider.js';
import { PROVIDERS } from '../providers/provider-registry.js';
import { AttemptTimers } from '../routing/attempt-timers.js';
import { addForwardedHeaders, withoutOperatorHeaders } from '../routing/forwarded-headers.js';
import { DEADLINE, TARGET, UPLOAD_SENT, USAGE, USAGE_NOT_ASKED, type ModelContext } from '../model-request.js';
import { modelStream } from '../stream-answer.js';
import { notJsonAnswer, parsedAnswer } from '../answer-json.js';
import { IDENTITY_FORWARD_HEADERS } from '../../auth/index.js';
import { OPENAI_HEADERS, passedHeaders } from '../providers/shared/upstream-headers.js';
import { streamFormat } from '../../../contract/stream-format.js';
import { TRACING, PARENT_SPAN, REQUEST_SPAN } from '../../../kernel/engine/tracing.js';
import type { Tracing } from '../../../kernel/observability/tracing.js';
import { startCallSpan, tracedForward, CALL_SPAN } from '../metrics/genai-spans.js';
import { mapStream, primePassthrough, primeStream, UpstreamChunks } from './upstream-stream.js';
import { RESPONSE } from '../../../kernel/engine/context.js';

type GatewayContext = ModelContext;

const ERROR_BODY_LIMIT = 256 * 1024;
const PASSED_HEADERS = ['content-length', 'content-disposition'];

/**
 * One upstream call as a provider sees it (ProviderCall). A class, not an object literal with
 * getters: the query and a real AbortSignal are made only when a provider reads them.
 */
class UpstreamCall implements ProviderCall {
  readonly operation: ProviderCall['operation'];
  readonly stream: boolean;
  readonly apiKey: string | undefined;
  readonly params: Record<string, string>;
  readonly headers: ProviderCall['headers'];
  readonly hasQuery: boolean;
  /** The attempt's own signal when it has one (a deadline, attempt timers); else the caller's. */
  readonly attemptSignal: AbortSignal | CallerSignal;
  /** Set when the request has a deadline: tells a passed deadline from a gone caller. */
  readonly deadlineSignal: AbortSignal | undefined;

  constructor(
    private readonly ctx: GatewayContext,
    readonly body: JsonObject | undefined,
    /** The body's bytes when they can go as they are (see rawBodyWith); else the provider serializes `body`. */
    readonly rawBody: Buffer | undefined,
    adapter: OperationAdapter,
    readonly target: ProviderCall['target'],
    timers: AttemptTimers,
  ) {
    this.operation = ctx.endpoint.operation;
    this.stream = body?.stream === true && adapter.stream !== undefined;
    this.apiKey = target.apiKey;
    this.params = ctx.params;
    this.headers = ctx.headers;
    this.hasQuery = ctx.hasQuery;
    // Without a deadline or timers, the caller's own cheap signal (no AbortSignal is made).
    const deadline = ctx.get(DEADLINE);
    if (deadline === undefined) {
      this.attemptSignal = timers.active ? AbortSignal.any([ctx.signal, timers.signal]) : ctx.callerSignal;
      this.deadlineSignal = undefined;
    } else {
      const deadlineSignal = AbortSignal.timeout(Math.max(1, Math.ceil(deadline - performance.now())));
      this.attemptSignal = AbortSignal.any(timers.active ? [ctx.signal, deadlineSignal, timers.signal] : [ctx.signal, deadlineSignal]);
      this.deadlineSignal = deadlineSignal;
    }
  }

  get query(): URLSearchParams {
    return this.ctx.query;
  }

  get signal(): AbortSignal {
    const signal = this.attemptSignal;
    return signal === this.ctx.callerSignal ? this.ctx.signal : (signal as AbortSignal);
  }
}

/** Maps a failure of the upstream exchange to a gateway error, telling a deadline from a gone caller. */
export function attemptError(err: unknown, ctx: GatewayContext, provider: string, deadlineSignal?: AbortSignal): GatewayError {
  if (err instanceof GatewayError) return err;
  if (deadlineSignal?.aborted) {
    return new GatewayError('request_timeout', `The request deadline passed while waiting for ${provider}.`, { provider, retryable: false });
  }
  if (ctx.callerGone) return new GatewayError('request_timeout', 'The caller went away.', { provider, retryable: false });
  return normalizeError(err, provider);
}

/**
 * An error JavaScript raised while the provider's module read the upstream's answer (a member of
 * the wrong type, a null where an object belongs): the upstream sent an answer the gateway cannot
 * read, which the contract answers as a provider_error (502), retried and failed over like one.
 * What the module could not read goes to the log, not to the caller.
 */
function isReadingFailure(err: unknown): err is Error {
  return err instanceof TypeError || err instanceof RangeError || err instanceof SyntaxError;
}

function unreadableAnswer(err: Error, ctx: GatewayContext, services: GatewayServices, provider: string): GatewayError {
  // A JSON parser's message quotes the text it stopped at (the answer's, not the code's): only its kind is logged.
  const why = err instanceof SyntaxError ? err.name : redactSecrets(`${err.name}: ${err.message}`, ctx.secrets);
  services.logger.warn({ requestId: ctx.id, provider, err: why }, 'an upstream answer could not be read');
  return new GatewayError('provider_error', `${provider} sent an answer the gateway cannot read.`, { provider, retryable: true });
}

/** The provider's translation of a whole answer, a failure to read it being the upstream's (see isReadingFailure). */
function translated(adapter: OperationAdapter, answer: unknown, call: ProviderCall, ctx: GatewayContext, services: GatewayServices, provider: string): unknown {
  try {
    return adapter.response!(answer, call);
  } catch (err) {
    throw isReadingFailure(err) ? unreadableAnswer(err, ctx, services, provider) : err;
  }
}

function wantsBinary(adapter: OperationAdapter, call: ProviderCall): boolean {
  return typeof adapter.binary === 'function' ? adapter.binary(call) : adapter.binary === true;
}

/** The request body for the current target: override_params applied (to an upload's fields as its form is sent: see uploadForm). */
function targetBody(ctx: GatewayContext): JsonObject | undefined {
  const target = ctx.get(TARGET)!;
  const body = ctx.get(BODY);
  return target.overrideParams && body && !isUpload(body) ? { ...body, ...target.overrideParams } : body;
}

/** Sends one upstream call; `partBody` replaces the body for one call of a fanned-out operation. */
async function sendToProvider(ctx: GatewayContext, services: GatewayServices, provider: ProviderInstance, adapter: OperationAdapter, partBody?: unknown) {
  const target = ctx.get(TARGET)!;
  // A fanned-out part is a body the adapter's fanOut made from the request's.
  const body = (partBody as JsonObject | undefined) ?? targetBody(ctx);
  const rawBody = partBody === undefined ? rawBodyWith(ctx, target.overrideParams) : undefined;
  const timers = new AttemptTimers(provider.id, target.firstByteTimeout, target.idleTimeout);
  const call = new UpstreamCall(ctx, body, rawBody, adapter, target, timers);
  const upstream = await adapter.request(call, provider);
  // A caller's custom host gets none of the operator's headers; forwarded headers never override the gateway's.
  if (target.callerHost) withoutOperatorHeaders(upstream.headers, provider.settings.headers);
  if (target.forwardHeaders) addForwardedHeaders(upstream.headers, target.forwardHeaders, ctx.headers);
  // Set by the forward-identity stage when the pipeline has it.
  const identityHeaders = ctx.get(IDENTITY_FORWARD_HEADERS);
  if (identityHeaders) for (const name in identityHeaders) upstream.headers[name.toLowerCase()] = identityHeaders[name]!;
  if (ctx.endpoint.body === 'multipart') ctx.set(UPLOAD_SENT, true);
  // With traces on: a client span per upstream call (ended by tracedForward), its traceparent sent upstream.
  const tracing: Tracing | undefined = services.get(TRACING);
  const span = tracing && startCallSpan(tracing, ctx, target, upstream.url, partBody !== undefined);
  if (span) upstream.headers.traceparent = span.traceparent();
  const started = performance.now();
  let res: Dispatcher.ResponseData;
  try {
    // undici's (coarse) timers stay as a backstop (they do not run while the caller applies
    // backpressure); without target values, undici's defaults are routing.defaults'.
    res = await services.upstream.send(upstream, { signal: call.attemptSignal, headersTimeout: target.firstByteTimeout, bodyTimeout: target.idleTimeout, pool: provider.id });
  } catch (err) {
    timers.clear();
    throw attemptError(err, ctx, provider.id, call.deadlineSignal);
  }
  span?.setAttribute('http.response.status_code', res.statusCode);
  if (span && partBody !== undefined) {
    if (res.statusCode >= 400) span.fail(`HTTP ${res.statusCode}`, String(res.statusCode));
    span.end();
  }
  // A stream's first byte is its first part (primeStream); anything else has arrived with its headers.
  const streaming = call.stream && res.statusCode >= 200 && res.statusCode < 300 && !String(res.headers['content-type'] ?? '').includes('json');
  if (!streaming) timers.clear();
  services.metrics.recordUpstream(provider.id, ctx.endpoint.operation, (performance.now() - started) / 1000);
  return { res, call, timers };
}

/** An upstream error answer -> the provider's gateway error (credentials redacted). */
async function upstreamFailure(ctx: GatewayContext, provider: ProviderInstance, res: Dispatcher.ResponseData): Promise<GatewayError> {
  const status = res.statusCode;
  const buf = await readBody(res.body, ERROR_BODY_LIMIT).catch(() => Buffer.alloc(0));
  // Compressed, UTF-16 or binary bodies are read as text first (or not shown), so the redactor sees every secret.
  const body = upstreamBodyText(buf, res.headers, ERROR_BODY_LIMIT);
  const error = provider.mapError(status, body.text ? Buffer.from(body.text, 'utf8') : Buffer.alloc(0), res.headers);
  error.message = redactSecrets(error.message, ctx.secrets);
  error.provider = provider.id;
  error.upstreamStatus = status;
  // Masked before it is cut: a secret across the cut would otherwise leave its first characters.
  error.upstreamBody = body.text === undefined ? `(${body.description}, not shown)` : redactSecrets(body.text, ctx.secrets).slice(0, 4096);
  error.retryable = true;
  // The provider's request id and rate-limit headers reach the caller on errors too
  error.headers = { ...passedHeaders(provider.passHeaders ?? OPENAI_HEADERS, res.headers), ...error.headers };
  return error;
}

/** Upstream calls of one fanned-out operation that run at once. */
const FAN_OUT_CONCURRENCY = 8;

/** Runs one upstream call per part (bounded concurrency); the answers, in order, go to `response`. */
async function sendFannedOut(ctx: GatewayContext, services: GatewayServices, provider: ProviderInstance, adapter: OperationAdapter, parts: unknown[]): Promise<GatewayResponse> {
  const answers: unknown[] = new Array(parts.length);
  let next = 0;
  let failed = false;
  let lastCall: ProviderCall | undefined;
  const one = async (i: number) => {
    const { res, call } = await sendToProvider(ctx, services, provider, adapter, parts[i]);
    const deadlineSignal = call.deadlineSignal;
    lastCall = call;
    if (res.statusCode >= 400 || res.statusCode < 200) throw await upstreamFailure(ctx, provider, res);
    let raw: Buffer;
    try {
      raw = await readBody(res.body);
    } catch (err) {
      throw attemptError(err, ctx, provider.id, deadlineSignal);
    }
    answers[i] = parsedAnswer(raw, provider.id);
  };
  const worker = async () => {
    while (next < parts.length && !failed) {
      try {
        await one(next++);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(FAN_OUT_CONCURRENCY, parts.length) }, worker));
  // The last call with the whole body (its getters kept: the same class).
  const call: ProviderCall = Object.assign(Object.create(Object.getPrototypeOf(lastCall!)) as ProviderCall, lastCall!, { body: targetBody(ctx), rawBody: undefined });
  return { kind: 'json', status: 200, body: adapter.response ? translated(adapter, answers, call, ctx, services, provider.id) : answers };
}

/**
 * Sends the request to the current target's provider and sets `ctx.response`: upstream bytes
 * passed through where the provider speaks OpenAI, the provider's answer mapped otherwise,
 * streams as parts (after their first part arrived), binary bodies as node streams.
 */
export default defineStage<ForwardStageConfig, GatewayContext>({
  name: 'forward',
  description: 'Sends the request to the chosen provider and reads its answer.',
  schema: schemaDocument('stages/forward.schema.json'),
  requires: [TARGET],
  reads: [BODY, RAW_BODY, BODY_CHANGED, DEADLINE, IDENTITY_FORWARD_HEADERS, USAGE_NOT_ASKED, REQUEST_SPAN, PARENT_SPAN, CALL_SPAN],
  writes: [UPLOAD_SENT, USAGE, CALL_SPAN, RESPONSE],
  terminal: true,
  create(_config, services) {
    const bodyLimit = services.config.server?.bodyLimit ?? 10 * 1024 * 1024;
    const providers = services.require(PROVIDERS);
    const tracing = services.get(TRACING);
    const forward = async (ctx: GatewayContext) => {
      const target = ctx.get(TARGET)!;
      const provider = providers.get(target.provider);
      if (!provider) throw badRequest(`Unknown provider "${target.provider}".`, 'x-gateway-provider');
      const adapter = provider.operations[ctx.endpoint.operation];
      if (!adapter) {
        const op = ctx.endpoint.operation;
        const serving = providers.ids().filter((id) => providers.get(id)?.operations[op]);
        const why = op === 'moderations' ? ` ${provider.id} has no moderation model.` : '';
        const others = serving.length ? ` Providers that serve it: ${serving.join(', ')}.` : '';
        throw badRequest(`Provider ${provider.id} does not support ${ctx.route} (${op}).${why}${others}`, 'x-gateway-provider');
      }
      if (provider.requiresKey && !target.apiKey) {
        throw new GatewayError('invalid_api_key', `No API key for ${provider.id}.`, { provider: provider.id });
      }
      // Read by validate in the default pipelines: nothing to wait for then.
      const reading = ensureJsonBody(ctx, bodyLimit);
      if (reading) await reading;
      const parts = adapter.fanOut?.(targetBody(ctx));
      if (parts) {
        ctx.response = await sendFannedOut(ctx, services, provider, adapter, parts);
        return;
      }
      const { res, call, timers } = await sendToProvider(ctx, services, provider, adapter);
      const deadlineSignal = call.deadlineSignal;
      const status = res.statusCode;
      if (status >= 400 || status < 200) throw await upstreamFailure(ctx, provider, res);
      const contentType = String(res.headers['content-type'] ?? '');
      let response: JsonAnswer | StreamAnswer | BinaryAnswer;
      if (wantsBinary(adapter, call)) {
        const headers: Record<string, string> = {};
        for (const name of PASSED_HEADERS) {
          const value = res.headers[name];
          if (typeof value === 'string') headers[name] = value;
        }
        response = { kind: 'binary', status, headers, contentType: contentType || 'application/octet-stream', body: res.body };
      } else if (call.stream && !contentType.includes('json')) {
        const format = streamFormat(ctx.endpoint.operation);
        // Usage the metering asked for on the caller's behalf is noted, not sent (see the meter stage).
        const hiddenUsage = ctx.has(USAGE_NOT_ASKED);
        const includeUsage = objectOf(call.body?.stream_options).include_usage === true && !hiddenUsage;
        const stream = adapter.stream!;
        const map = stream.createMapper(call);
        // The mapper's reading of the events is the one JavaScript on the way: its errors are the upstream's unreadable answer.
        const fail = (err: unknown) => (isReadingFailure(err) ? unreadableAnswer(err, ctx, services, provider.id) : attemptError(err, ctx, provider.id, deadlineSignal));
        const upstream = new UpstreamChunks(res.body, timers);
        // An upstream that speaks the answer's own format: its bytes pass through as they came.
        const passing = stream.passesThrough === true && (format === 'chat' || format === 'text');
        const parts = await (
          passing
            ? primePassthrough(upstream, timers, { format, includeUsage, hiddenUsage, map, fail, onUsage: (usage) => ctx.set(USAGE, usage) })
            : primeStream(mapStream(upstream, upstream.from([]), stream.framing, map, fail), timers)
        ).catch((err) => {
          throw attemptError(err, ctx, provider.id, deadlineSignal);
        });
        const answer = modelStream(ctx, status, format, includeUsage, parts, undefined, call.body);
        if (hiddenUsage) answer.hiddenUsage = true;
        response = answer;
      } else {
        let raw: Buffer;
        try {
          raw = await readBody(res.body);
        } catch (err) {
          throw attemptError(err, ctx, provider.id, deadlineSignal);
        }
        if (adapter.response && (!adapter.responseNeeded || adapter.responseNeeded(raw))) {
          response = { kind: 'json', status, body: translated(adapter, parsedAnswer(raw, provider.id), call, ctx, services, provider.id) };
        } else {
          // Passed through unparsed: bytes that cannot be JSON by their ends are the upstream's bad answer (nothing to answer for 204).
          if (status !== 204 && !endsLikeJsonContainer(raw)) throw notJsonAnswer(provider.id);
          response = { kind: 'json', status, raw };
        }
      }
      // The provider's request id and rate-limit headers (CONTRACT section 2)
      const passed = passedHeaders(provider.passHeaders ?? OPENAI_HEADERS, res.headers);
      for (const name in passed) (response.headers ??= {})[name] = passed[name]!;
      ctx.response = response;
    };
    return tracing ? tracedForward(forward) : forward;
  },
});
