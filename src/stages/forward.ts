import type { Dispatcher } from 'undici';
import { defineStage } from '../engine/stage.js';
import type { GatewayContext, GatewayResponse } from '../engine/context.js';
import type { GatewayServices } from '../engine/services.js';
import { badRequest, GatewayError, internalError } from '../errors/gateway-error.js';
import { normalizeError } from '../errors/normalize.js';
import { redactSecrets } from '../errors/redact.js';
import { ensureJsonBody } from '../engine/request-body.js';
import { frameEventBatches } from '../protocol/framing.js';
import { PartStream } from '../protocol/part-stream.js';
import type { StreamPart } from '../protocol/stream-parts.js';
import type { OperationAdapter, ProviderCall, ProviderInstance } from '../providers/provider.js';
import { readBody } from '../upstream/read-body.js';
import { AttemptTimers } from '../routing/attempt-timers.js';

const ERROR_BODY_LIMIT = 256 * 1024;
const ignore = () => undefined;
const PASSED_HEADERS = ['content-length', 'content-disposition'];

/** The signal of one attempt: the caller going away, the request's deadline passing, or the attempt's own timers firing. */
function attemptSignal(ctx: GatewayContext, timers: AttemptTimers): { signal: AbortSignal; deadlineSignal?: AbortSignal } {
  if (ctx.deadline === undefined) return { signal: timers.active ? AbortSignal.any([ctx.signal, timers.signal]) : ctx.signal };
  const remaining = Math.max(1, Math.ceil(ctx.deadline - performance.now()));
  const deadlineSignal = AbortSignal.timeout(remaining);
  return { signal: AbortSignal.any(timers.active ? [ctx.signal, deadlineSignal, timers.signal] : [ctx.signal, deadlineSignal]), deadlineSignal };
}

/** Maps a failure of the upstream exchange to a gateway error, telling a deadline from a gone caller. */
export function attemptError(err: unknown, ctx: GatewayContext, provider: string, deadlineSignal?: AbortSignal): GatewayError {
  if (err instanceof GatewayError) return err;
  if (deadlineSignal?.aborted) {
    return new GatewayError('request_timeout', `The request deadline passed while waiting for ${provider}.`, { provider, retryable: false });
  }
  if (ctx.signal.aborted) return new GatewayError('request_timeout', 'The caller went away.', { provider, retryable: false });
  return normalizeError(err, provider);
}

async function* mapStream(
  body: Dispatcher.ResponseData['body'],
  adapter: OperationAdapter,
  call: ProviderCall,
  ctx: GatewayContext,
  provider: string,
  timers: AttemptTimers,
  deadlineSignal?: AbortSignal,
): AsyncGenerator<StreamPart[]> {
  const stream = adapter.stream!;
  const map = stream.createMapper(call);
  // The consumer stops reading at the answer's end; leaving the iterator must not destroy the
  // body (that builds an AbortError per stream), so the rest is drained instead.
  const chunks = body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>;
  let complete = false;
  try {
    for await (const events of frameEventBatches(stream.framing, timers.active ? timers.watch(chunks) : chunks)) {
      const parts: StreamPart[] = [];
      for (const event of events) {
        let out: ReturnType<typeof map>;
        try {
          out = map(event);
        } catch (err) {
          // The parts before a failing event still reach the caller, then the failure.
          if (parts.length) yield parts;
          throw err;
        }
        if (out === undefined) continue;
        if (Array.isArray(out)) for (const part of out) parts.push(part);
        else parts.push(out);
      }
      if (parts.length === 0) continue;
      if (parts.some((p) => p.type === 'done')) complete = true;
      yield parts;
    }
  } catch (err) {
    throw attemptError(err, ctx, provider, deadlineSignal);
  } finally {
    if (!body.readableEnded && !body.destroyed) {
      body.on('error', ignore);
      if (complete) body.dump({ limit: 64 * 1024 }).catch(ignore);
      else body.destroy();
    }
  }
}

/**
 * Waits for the stream's first parts, so that a failure before the first byte can still fall
 * back; the first part ends the attempt's first_byte_timeout.
 */
async function primeStream(batches: AsyncGenerator<StreamPart[]>, timers: AttemptTimers): Promise<PartStream> {
  const first = await batches.next();
  timers.firstByteArrived();
  return new PartStream(first.done ? undefined : first.value, batches);
}

function wantsBinary(adapter: OperationAdapter, call: ProviderCall): boolean {
  return typeof adapter.binary === 'function' ? adapter.binary(call) : adapter.binary === true;
}

/** The request body for the current target: override_params applied. */
function targetBody(ctx: GatewayContext): any {
  const target = ctx.target!;
  return target.overrideParams && ctx.body ? { ...ctx.body, ...target.overrideParams } : ctx.body;
}

/** Sends one upstream call; `partBody` replaces the body for one call of a fanned-out operation. */
async function sendToProvider(ctx: GatewayContext, services: GatewayServices, provider: ProviderInstance, adapter: OperationAdapter, partBody?: unknown) {
  const target = ctx.target!;
  const body = partBody ?? targetBody(ctx);
  const unchanged = partBody === undefined && !ctx.bodyChanged && !target.overrideParams;
  const timers = new AttemptTimers(provider.id, target.firstByteTimeout, target.idleTimeout);
  const { signal, deadlineSignal } = attemptSignal(ctx, timers);
  const call: ProviderCall = {
    operation: ctx.route.operation,
    body,
    rawBody: unchanged ? ctx.rawBody : undefined,
    stream: body?.stream === true && adapter.stream !== undefined,
    target,
    apiKey: target.apiKey,
    params: ctx.params,
    query: ctx.query,
    headers: ctx.headers,
    req: ctx.req,
    signal,
  };
  const upstream = await adapter.request(call, provider);
  if (target.forwardHeaders) {
    for (const name of target.forwardHeaders) {
      const value = ctx.headers[name.toLowerCase()];
      if (typeof value === 'string') upstream.headers[name.toLowerCase()] = value;
    }
  }
  // Set by the forward-identity stage when the pipeline has it.
  const identityHeaders = ctx.state.identityHeaders as Record<string, string> | undefined;
  if (identityHeaders) for (const [name, value] of Object.entries(identityHeaders)) upstream.headers[name.toLowerCase()] = value;
  if (ctx.route.body === 'multipart') ctx.state.uploadSent = true;
  const started = performance.now();
  let res: Dispatcher.ResponseData;
  try {
    // undici's (coarse) timers stay as a backstop; a stream's gaps are timed by `timers` alone.
    res = await services.upstream.send(upstream, { signal, headersTimeout: target.firstByteTimeout, bodyTimeout: call.stream ? undefined : target.idleTimeout });
  } catch (err) {
    timers.clear();
    throw attemptError(err, ctx, provider.id, deadlineSignal);
  }
  // A stream's first byte is its first part (primeStream); anything else has arrived with its headers.
  const streaming = call.stream && res.statusCode >= 200 && res.statusCode < 300 && !String(res.headers['content-type'] ?? '').includes('json');
  if (!streaming) timers.clear();
  services.metrics.recordUpstream(provider.id, ctx.route.operation, (performance.now() - started) / 1000);
  return { res, call, deadlineSignal, timers };
}

/** An upstream error answer -> the provider's gateway error (credentials redacted). */
async function upstreamFailure(ctx: GatewayContext, provider: ProviderInstance, res: Dispatcher.ResponseData): Promise<GatewayError> {
  const status = res.statusCode;
  const buf = await readBody(res.body, ERROR_BODY_LIMIT).catch(() => Buffer.alloc(0));
  const error = provider.mapError(status, buf, res.headers);
  error.message = redactSecrets(error.message, ctx.secrets);
  error.provider = provider.id;
  error.upstreamStatus = status;
  error.upstreamBody = redactSecrets(buf.toString('utf8', 0, Math.min(buf.length, 4096)), ctx.secrets);
  error.retryable = true;
  return error;
}

/** Upstream calls of one fanned-out operation that run at once. */
const FAN_OUT_CONCURRENCY = 8;

/** Runs one upstream call per part (bounded concurrency); the answers, in order, go to `response`. */
async function sendFannedOut(
  ctx: GatewayContext,
  services: GatewayServices,
  provider: ProviderInstance,
  adapter: OperationAdapter,
  parts: unknown[],
): Promise<GatewayResponse> {
  const answers: unknown[] = new Array(parts.length);
  let next = 0;
  let failed = false;
  let lastCall: ProviderCall | undefined;
  const one = async (i: number) => {
    const { res, call, deadlineSignal } = await sendToProvider(ctx, services, provider, adapter, parts[i]);
    lastCall = call;
    if (res.statusCode >= 400 || res.statusCode < 200) throw await upstreamFailure(ctx, provider, res);
    let raw: Buffer;
    try {
      raw = await readBody(res.body);
    } catch (err) {
      throw attemptError(err, ctx, provider.id, deadlineSignal);
    }
    try {
      answers[i] = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new GatewayError('provider_error', `${provider.id} sent an answer that is not JSON.`, { provider: provider.id, retryable: true });
    }
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
  const call = { ...lastCall!, body: targetBody(ctx), rawBody: undefined };
  return { kind: 'json', status: 200, body: adapter.response ? adapter.response(answers, call) : answers };
}

/**
 * Sends the request to the current target's provider and sets `ctx.response`: upstream bytes
 * passed through where the provider speaks OpenAI, the provider's answer mapped otherwise,
 * streams as parts (after their first part arrived), binary bodies as node streams.
 */
export default defineStage<Record<string, never>>({
  name: 'forward',
  description: 'Sends the request to the chosen provider and reads its answer.',
  schema: { type: 'object', additionalProperties: false },
  create(_config, services) {
    const bodyLimit = services.config.server?.bodyLimit ?? 10 * 1024 * 1024;
    return async (ctx) => {
      const target = ctx.target;
      if (!target) throw internalError(new Error('forward ran without a target: put the route stage before it'));
      const provider = services.providers.get(target.provider);
      if (!provider) throw badRequest(`Unknown provider "${target.provider}".`, 'x-gateway-provider');
      const adapter = provider.operations[ctx.route.operation];
      if (!adapter) {
        throw badRequest(`Provider ${provider.id} does not support ${ctx.route.key} (${ctx.route.operation}).`, 'x-gateway-provider');
      }
      if (provider.requiresKey && !target.apiKey) {
        throw new GatewayError('invalid_api_key', `No API key for ${provider.id}.`, { provider: provider.id });
      }
      await ensureJsonBody(ctx, bodyLimit);
      const parts = adapter.fanOut?.(targetBody(ctx));
      if (parts) {
        ctx.response = await sendFannedOut(ctx, services, provider, adapter, parts);
        return;
      }
      const { res, call, deadlineSignal, timers } = await sendToProvider(ctx, services, provider, adapter);
      const status = res.statusCode;
      if (status >= 400 || status < 200) throw await upstreamFailure(ctx, provider, res);
      const contentType = String(res.headers['content-type'] ?? '');
      let response: GatewayResponse;
      if (wantsBinary(adapter, call)) {
        const headers: Record<string, string> = {};
        for (const name of PASSED_HEADERS) {
          const value = res.headers[name];
          if (typeof value === 'string') headers[name] = value;
        }
        response = { kind: 'binary', status, headers, contentType: contentType || 'application/octet-stream', body: res.body };
      } else if (call.stream && !contentType.includes('json')) {
        const parts = await primeStream(mapStream(res.body, adapter, call, ctx, provider.id, timers, deadlineSignal), timers).catch((err) => {
          throw attemptError(err, ctx, provider.id, deadlineSignal);
        });
        response = {
          kind: 'stream',
          status,
          format: ctx.route.operation === 'completions' ? 'text' : 'chat',
          includeUsage: call.body?.stream_options?.include_usage === true,
          parts,
        };
      } else {
        let raw: Buffer;
        try {
          raw = await readBody(res.body);
        } catch (err) {
          throw attemptError(err, ctx, provider.id, deadlineSignal);
        }
        if (adapter.response) {
          let parsed: unknown;
          try {
            parsed = JSON.parse(raw.toString('utf8'));
          } catch {
            throw new GatewayError('provider_error', `${provider.id} sent an answer that is not JSON.`, { provider: provider.id, retryable: true });
          }
          response = { kind: 'json', status, body: adapter.response(parsed, call) };
        } else {
          response = { kind: 'json', status, raw };
        }
      }
      ctx.response = response;
    };
  },
});
