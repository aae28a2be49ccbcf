import type { Dispatcher } from 'undici';
import { defineStage } from '../engine/stage.js';
import type { GatewayContext, GatewayResponse } from '../engine/context.js';
import type { GatewayServices } from '../engine/services.js';
import { badRequest, GatewayError, internalError } from '../errors/gateway-error.js';
import { normalizeError } from '../errors/normalize.js';
import { redactSecrets } from '../errors/redact.js';
import { ensureJsonBody } from '../engine/request-body.js';
import { frameEvents } from '../protocol/framing.js';
import type { StreamPart } from '../protocol/stream-parts.js';
import type { OperationAdapter, ProviderCall, ProviderInstance } from '../providers/provider.js';
import { readBody } from '../upstream/read-body.js';

const ERROR_BODY_LIMIT = 256 * 1024;
const PASSED_HEADERS = ['content-length', 'content-disposition'];

/** The signal of one attempt: the caller going away, or the request's deadline passing. */
function attemptSignal(ctx: GatewayContext): { signal: AbortSignal; deadlineSignal?: AbortSignal } {
  if (ctx.deadline === undefined) return { signal: ctx.signal };
  const remaining = Math.max(1, Math.ceil(ctx.deadline - performance.now()));
  const deadlineSignal = AbortSignal.timeout(remaining);
  return { signal: AbortSignal.any([ctx.signal, deadlineSignal]), deadlineSignal };
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
  deadlineSignal?: AbortSignal,
): AsyncGenerator<StreamPart> {
  const stream = adapter.stream!;
  const map = stream.createMapper(call);
  try {
    for await (const event of frameEvents(stream.framing, body)) {
      const out = map(event);
      if (out === undefined) continue;
      if (Array.isArray(out)) yield* out;
      else yield out;
    }
  } catch (err) {
    throw attemptError(err, ctx, provider, deadlineSignal);
  } finally {
    if (!body.destroyed) body.destroy();
  }
}

/** Waits for the stream's first part, so that a failure before the first byte can still fall back. */
async function primeStream(parts: AsyncGenerator<StreamPart>): Promise<AsyncIterable<StreamPart>> {
  const first = await parts.next();
  return (async function* () {
    if (first.done) return;
    yield first.value;
    yield* parts;
  })();
}

function wantsBinary(adapter: OperationAdapter, call: ProviderCall): boolean {
  return typeof adapter.binary === 'function' ? adapter.binary(call) : adapter.binary === true;
}

async function sendToProvider(ctx: GatewayContext, services: GatewayServices, provider: ProviderInstance, adapter: OperationAdapter) {
  const target = ctx.target!;
  const body = target.overrideParams && ctx.body ? { ...ctx.body, ...target.overrideParams } : ctx.body;
  const unchanged = !ctx.bodyChanged && !target.overrideParams;
  const { signal, deadlineSignal } = attemptSignal(ctx);
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
  const started = performance.now();
  let res: Dispatcher.ResponseData;
  try {
    res = await services.upstream.send(upstream, { signal, headersTimeout: target.firstByteTimeout, bodyTimeout: target.idleTimeout });
  } catch (err) {
    throw attemptError(err, ctx, provider.id, deadlineSignal);
  }
  services.metrics.upstreamDuration.observe({ provider: provider.id, operation: ctx.route.operation }, (performance.now() - started) / 1000);
  return { res, call, deadlineSignal };
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
      const { res, call, deadlineSignal } = await sendToProvider(ctx, services, provider, adapter);
      const status = res.statusCode;
      if (status >= 400 || status < 200) {
        const buf = await readBody(res.body, ERROR_BODY_LIMIT).catch(() => Buffer.alloc(0));
        const error = provider.mapError(status, buf, res.headers);
        error.message = redactSecrets(error.message, ctx.secrets);
        error.provider = provider.id;
        error.upstreamStatus = status;
        error.upstreamBody = redactSecrets(buf.toString('utf8', 0, Math.min(buf.length, 4096)), ctx.secrets);
        error.retryable = true;
        throw error;
      }
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
        const parts = await primeStream(mapStream(res.body, adapter, call, ctx, provider.id, deadlineSignal)).catch((err) => {
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
