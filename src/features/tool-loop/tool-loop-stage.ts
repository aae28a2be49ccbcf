import type { ToolLoopStageConfig } from '../../generated/stages/tool-loop.js';
import { schemaDocument } from '../../kernel/config/schema-validator.js';
import { defineStage } from '../../kernel/engine/stage.js';
import type { GatewayServices } from '../../kernel/engine/services.js';
import type { Identity } from '../../kernel/engine/context.js';
import { BODY, BODY_CHANGED, ensureJsonBody } from '../../kernel/engine/request-body.js';
import { badRequest, GatewayError, unauthorized } from '../../contract/errors/gateway-error.js';
import { newResponseId, responseObject } from '../../contract/openai/responses-shapes.js';
import { ANONYMOUS } from '../auth/auth-services.js';
import { publicBaseUrl } from '../auth/public-url.js';
import { DEADLINE, TARGET, USAGE_NOT_ASKED, type ModelContext } from '../models/model-request.js';
import { PROVIDERS } from '../models/providers/provider-registry.js';
import { modelAnswer, modelStream } from '../models/stream-answer.js';
import { isTranslated } from '../models/translations.js';
import { GatewayTools } from './gateway-tools.js';
import { LoopEventStream, SILENT_EVENTS, type LoopEvents } from './loop-events.js';
import { ChatLoopEvents, chatCompletionOf, chatEntries, chatRequestOf, loopAnswerOfChat, loopBodyOfChat } from './chat-loop.js';
import { mcpToolsOf } from './mcp-tools.js';
import { CallerGone, ResponsesLoop, type LoopLimits } from './responses-loop.js';
import { TOOL_LOOP_RAN } from './tool-loop-slots.js';

type Json = Record<string, any>;

/** A model call of the loop that did not answer 2xx: its answer goes to the caller as it came. */
class ModelFailure extends Error {
  constructor(readonly answer: NonNullable<ModelContext['response']>) {
    super('The model call failed.');
  }
}

/** Whether the attempt's provider runs the Responses API itself (and so `mcp` tools with outside server URLs). */
function nativeResponses(ctx: ModelContext, services: GatewayServices): boolean {
  const target = ctx.get(TARGET);
  const adapter = target ? services.require(PROVIDERS).get(target.provider)?.operations['responses.create'] : undefined;
  return adapter !== undefined && !isTranslated(adapter);
}

/** Who the tools run for: the gateway credential; anonymous (every scope) only when auth is off, as on /mcp. */
function callerOf(ctx: ModelContext, services: GatewayServices): Identity {
  if (ctx.identity) return ctx.identity;
  if (services.config.auth?.enabled) throw unauthorized('An mcp tool of a gateway tool server needs a gateway credential (x-gateway-token): the tools run with its permissions.');
  return ANONYMOUS;
}

/** The answer of one model call, as an object (a JSON answer; a non-2xx one is a ModelFailure). */
function answerOf(ctx: ModelContext): Json {
  const answer = modelAnswer(ctx);
  if (!answer || answer.kind !== 'json') throw new GatewayError('provider_error', 'The model answered the tool loop with something other than JSON.');
  if (answer.status < 200 || answer.status >= 300) throw new ModelFailure(answer);
  if (answer.body && typeof answer.body === 'object') return answer.body as Json;
  if (answer.raw) return JSON.parse(answer.raw.toString('utf8'));
  throw new GatewayError('provider_error', 'The model answered the tool loop with an empty body.');
}

/**
 * The MCP tool loop (see ./responses-loop.ts) for POST /v1/responses whose `mcp` tools name the
 * gateway's tool servers. Runs after responses-state, so a kept conversation is already the
 * input and the loop's answer is kept like any other; each model call runs the stages after it
 * (guardrails, cache, retry, forward). A streamed request gets the loop's events as they happen.
 */
/** The operations the loop serves. */
const OPERATIONS = new Set(['responses.create', 'chat.completions']);

/**
 * The MCP tool loop (see ./responses-loop.ts) for POST /v1/responses and /v1/chat/completions
 * whose `mcp` tools name the gateway's tool servers. On /v1/responses it runs after
 * responses-state, so a kept conversation is already the input and the loop's answer is kept like
 * any other; each model call runs the stages after it (guardrails, cache, retry, forward). A
 * streamed request gets the loop's events as they happen.
 */
export default defineStage<ToolLoopStageConfig, ModelContext>({
  name: 'tool-loop',
  description: 'Runs the tools of mcp tools that name gateway tool servers: lists, calls (for the caller, with /mcp authorization and audit), feeds results back to the model.',
  schema: schemaDocument('stages/tool-loop.schema.json'),
  requires: [TARGET],
  repeats: true,
  create(config, services) {
    const tools = new GatewayTools(services);
    const bodyLimit = services.config.server?.bodyLimit ?? 10 * 1024 * 1024;
    return async (ctx, next) => {
      const operation = ctx.endpoint.operation;
      if (!OPERATIONS.has(operation)) return next();
      await ensureJsonBody(ctx, bodyLimit);
      const body: Json | undefined = ctx.get(BODY);
      if (!body || !Array.isArray(body.tools) || !body.tools.some((t: Json) => t?.type === 'mcp')) return next();
      const chat = operation === 'chat.completions';
      const found = mcpToolsOf(body.tools, 'tools', (name) => tools.has(name), publicBaseUrl(ctx.req, services.config));
      if (found.outside.length && (chat || !nativeResponses(ctx, services))) {
        const label = found.outside[0]!;
        throw badRequest(
          `The mcp tool "${label}" names a server outside this gateway: only a provider that runs MCP tools itself (openai, on /v1/responses) can take it. Name a tool server of the gateway (server_label, no server_url) instead.`,
          'tools',
        );
      }
      if (found.gateway.length === 0) return next();
      const entries = chat ? chatEntries(found.gateway, body.tools) : found.gateway;
      const identity = callerOf(ctx, services);
      const requested = typeof body.max_tool_calls === 'number' && body.max_tool_calls >= 0 ? Math.floor(body.max_tool_calls) : Infinity;
      const requestDeadline = ctx.get(DEADLINE);
      const limits: LoopLimits = {
        maxIterations: config.maxIterations ?? 10,
        maxToolCalls: Math.min(requested, config.maxToolCalls ?? 20),
        deadline: Math.min(Date.now() + (config.timeoutMs ?? 120_000), requestDeadline ?? Infinity),
        parallelCalls: config.parallelCalls ?? 4,
      };
      const changedBefore = ctx.get(BODY_CHANGED);
      let lastChat: Json | undefined;
      const callModel = async (request: Json): Promise<Json> => {
        ctx.set(BODY, chat ? chatRequestOf(body, request) : request);
        ctx.set(BODY_CHANGED, true);
        try {
          await next();
        } finally {
          ctx.set(BODY, body);
          ctx.set(BODY_CHANGED, changedBefore);
        }
        if (!chat) return answerOf(ctx);
        lastChat = answerOf(ctx);
        return loopAnswerOfChat(lastChat, request);
      };
      const loopBody = chat ? loopBodyOfChat(body) : body;
      ctx.set(TOOL_LOOP_RAN, true);
      const loopOf = (events: LoopEvents, onModelCall?: () => void) =>
        new ResponsesLoop({
          body: loopBody,
          original: loopBody,
          entries,
          identity,
          tools,
          limits,
          callerSignal: ctx.signal,
          callModel: onModelCall
            ? async (request) => {
                try {
                  return await callModel(request);
                } finally {
                  onModelCall();
                }
              }
            : callModel,
          events,
        });
      const answerFor = (response: Json): Json => (chat ? chatCompletionOf(response, lastChat) : response);
      if (body.stream !== true) {
        try {
          ctx.response = { kind: 'json', status: 200, body: answerFor(await loopOf(SILENT_EVENTS).run()) };
        } catch (err) {
          if (err instanceof ModelFailure) ctx.response = err.answer;
          else if (!(err instanceof CallerGone)) throw err;
        }
        return;
      }
      // Streamed: the loop starts when the edge starts reading (after every stage before this one is done with the answer).
      const events = chat ? new ChatLoopEvents(String(body.model ?? ''), body.stream_options?.include_usage === true) : new LoopEventStream();
      if (events instanceof LoopEventStream)
        events.start(
          responseObject({ id: newResponseId(), createdAt: Math.floor(Date.now() / 1000), model: String(body.model ?? ''), status: 'in_progress', output: [], usage: null }, body),
        );
      const answer = modelStream(
        ctx,
        200,
        chat ? 'chat' : 'responses',
        body.stream_options?.include_usage === true,
        lazily(events, () => run()),
        undefined,
        chat ? undefined : body,
      );
      if (chat && ctx.get(USAGE_NOT_ASKED)) answer.hiddenUsage = true;
      const run = async () => {
        // each model call's own answer stays out of ctx.response: the edge writes this stream
        const loop = loopOf(events, () => (ctx.response = answer));
        try {
          events.end(answerFor(await loop.run()));
        } catch (err) {
          if (err instanceof CallerGone) return events.fail({ message: 'The caller went away.' });
          const failure =
            err instanceof ModelFailure ? failureBody(err.answer) : err instanceof GatewayError ? { code: err.code, message: err.message } : { message: 'The tool loop failed.' };
          if (!(err instanceof ModelFailure) && !(err instanceof GatewayError)) services.logger.warn({ requestId: ctx.id, err: (err as Error)?.message }, 'tool loop failed');
          events.fail(failure);
        }
      };
      ctx.response = answer;
    };
  },
});

/** The error object of a failed model answer. */
function failureBody(answer: NonNullable<ModelContext['response']>): Json {
  const body = answer.kind === 'json' ? (answer.body ?? (answer.raw ? safeParse(answer.raw.toString('utf8')) : undefined)) : undefined;
  const error = (body as Json | undefined)?.error;
  return { code: error?.code ?? 'provider_error', message: error?.message ?? 'The model call failed.', param: error?.param ?? null };
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `parts`, with `start` called when the first part is asked for. */
function lazily<T>(parts: AsyncIterable<T>, start: () => Promise<void>): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      const inner = parts[Symbol.asyncIterator]();
      let started = false;
      return {
        next: () => {
          if (!started) {
            started = true;
            void start();
          }
          return inner.next();
        },
        return: async () => (await inner.return?.()) ?? { done: true, value: undefined },
      };
    },
  };
}
