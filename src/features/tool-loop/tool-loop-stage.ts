import type { ToolLoopStageConfig } from '../../generated/stages/tool-loop.js';
import { schemaDocument } from '../../kernel/config/schema-validator.js';
import { defineStage } from '../../kernel/engine/stage.js';
import { REQUEST_SPAN } from '../../kernel/engine/tracing.js';
import type { GatewayServices } from '../../kernel/engine/services.js';
import type { Identity } from '../../kernel/engine/context.js';
import { BODY, BODY_CHANGED, ensureJsonBody } from '../../kernel/engine/request-body.js';
import { forbidden, GatewayError, unauthorized } from '../../contract/errors/gateway-error.js';
import { ANONYMOUS, publicBaseUrl } from '../auth/index.js';
import {
  CALL_TOKENS,
  DEADLINE,
  TARGET,
  USAGE_NOT_ASKED,
  type ModelContext,
  noteCallTokens,
  PROVIDERS,
  answerJson,
  modelAnswer,
  modelStream,
  type ModelStreamAnswer,
  callerGoneError,
  isTranslated,
  ANSWERED_BY_GATEWAY,
} from '../models/index.js';
import { GatewayTools, type CallerTools } from './gateway-tools.js';
import { isAnswerError } from '../../kernel/errors/answer-error.js';
import { SILENT_EVENTS, type LoopEvents } from './loop-events.js';
import { loopRouteOf, namesMcp, type LoopRoute, type RouteEvents } from './loop-routes.js';
import { budgetCheck } from './loop-budget.js';
import { METER, noteStreamText, type StreamNotes } from '../governance/index.js';
import { readRound, type RoundSink } from './round-stream.js';
import { CallerGone, ResponsesLoop, type LoopLimits } from './responses-loop.js';
import { RESPONSE, IDENTITY } from '../../kernel/engine/context.js';

type Json = Record<string, unknown>;

/** A model call of the loop that did not answer 2xx: its answer goes to the caller as it came. */
class ModelFailure extends Error {
  constructor(readonly answer: NonNullable<ModelContext['response']>) {
    super('The model call failed.');
  }
}

/** Whether the attempt's provider serves `api` itself, not translated (and so runs that API's MCP servers with outside URLs). */
function providerRuns(ctx: ModelContext, services: GatewayServices, api: 'responses.create' | 'messages.create'): boolean {
  const target = ctx.get(TARGET);
  const adapter = target ? services.require(PROVIDERS).get(target.provider)?.operations[api] : undefined;
  return adapter !== undefined && !isTranslated(adapter);
}

/** Who the tools run for: the gateway credential; anonymous (every scope) only when auth is off, as on /mcp. */
function callerOf(ctx: ModelContext, services: GatewayServices): Identity {
  if (ctx.identity) return ctx.identity;
  if (services.config.auth?.enabled) throw unauthorized('An mcp tool of a gateway tool server needs a gateway credential (x-gateway-token): the tools run with its permissions.');
  return ANONYMOUS;
}

/**
 * Chat and Messages have no place in their answer for a tool server the credential may not use
 * (Responses reports it in its mcp_list_tools item, as OpenAI does): such a request is a 403
 * naming the server, before any model call, rather than a loop run without its tools.
 */
async function refuseUnreachableServers(route: LoopRoute, caller: Identity, tools: GatewayTools): Promise<void> {
  for (const entry of route.entries) {
    if (await tools.mayUse(caller, entry.label)) continue;
    const where = route.format === 'chat' ? `tools[${entry.index}]` : `mcp_servers (${JSON.stringify(entry.name ?? entry.label)})`;
    throw forbidden(`${where}: this credential may not use the tool server "${entry.label}".`);
  }
}

/** The answer of one model call, as an object (a JSON answer; a non-2xx one is a ModelFailure). */
function answerOf(ctx: ModelContext): Json {
  const answer = modelAnswer(ctx);
  if (!answer || answer.kind !== 'json') throw new GatewayError('provider_error', 'The model answered the tool loop with something other than JSON.');
  if (answer.status < 200 || answer.status >= 300) throw new ModelFailure(answer);
  if (answer.body && typeof answer.body === 'object') return answer.body as Json;
  if (answer.raw) return answerJson(ctx, answer) as Json;
  throw new GatewayError('provider_error', 'The model answered the tool loop with an empty body.');
}

/**
 * The MCP tool loop (see ./responses-loop.ts) for POST /v1/responses whose `mcp` tools name the
 * gateway's tool servers. Runs after responses-state, so a kept conversation is already the
 * input and the loop's answer is kept like any other; each model call runs the stages after it
 * (guardrails, cache, retry, forward). A streamed request gets the loop's events as they happen.
 */
/** The operations the loop serves, and the API whose own MCP servers the provider must run itself. */
const OPERATIONS: Record<string, 'responses.create' | 'messages.create'> = {
  'responses.create': 'responses.create',
  'chat.completions': 'responses.create',
  'messages.create': 'messages.create',
};

/**
 * The MCP tool loop (see ./responses-loop.ts) for POST /v1/responses, /v1/chat/completions and
 * /v1/messages whose `mcp` tools (or mcp_servers) name the gateway's tool servers. On
 * /v1/responses it runs after responses-state, so a kept conversation is already the input and
 * the loop's answer is kept like any other; each model call runs the stages after it
 * (guardrails, cache, retry, forward). A streamed request gets the loop's events as they happen.
 */
export default defineStage<ToolLoopStageConfig, ModelContext>({
  name: 'tool-loop',
  description: 'Runs the tools of mcp tools that name gateway tool servers: lists, calls (for the caller, with /mcp authorization and audit), feeds results back to the model.',
  schema: schemaDocument('stages/tool-loop.schema.json'),
  requires: [TARGET],
  repeats: true,
  reads: [BODY, BODY_CHANGED, DEADLINE, REQUEST_SPAN, USAGE_NOT_ASKED, METER, IDENTITY],
  writes: [ANSWERED_BY_GATEWAY, BODY, BODY_CHANGED, CALL_TOKENS, DEADLINE, RESPONSE],
  create(config, services) {
    const tools = new GatewayTools(services);
    const bodyLimit = services.config.server?.bodyLimit ?? 10 * 1024 * 1024;
    // Most requests name no MCP tool: they pass in the same turn, before the gateway's address and the loop's route are worked out.
    const passesBy = (ctx: ModelContext): boolean => {
      const body: Json | undefined = ctx.get(BODY);
      return !body || typeof body !== 'object' || !namesMcp(ctx.endpoint.operation, body);
    };
    const looped = async (ctx: ModelContext, next: () => Promise<void>, nativeApi: 'responses.create' | 'messages.create'): Promise<void> => {
      const operation = ctx.endpoint.operation;
      const body = ctx.get(BODY) as Json;
      const route = loopRouteOf(operation, body, {
        base: publicBaseUrl(ctx.req, services.config),
        isServer: (name) => tools.has(name),
        runsOutsideServers: operation !== 'chat.completions' && providerRuns(ctx, services, nativeApi),
      });
      if (!route) return next();
      // a loop whose model call failed on the target before (a fallback): that call alone moves to this target
      // (a streamed loop's only while nothing was written to the caller)
      const paused = pausedLoops.get(ctx);
      pausedLoops.delete(ctx);
      const attempt: Attempt = { next, body, changedBefore: ctx.get(BODY_CHANGED), requestDeadline: ctx.get(DEADLINE) };
      if (paused) {
        ctx.set(ANSWERED_BY_GATEWAY, true);
        paused.attempt = attempt;
        paused.limits.deadline = loopDeadline(paused.startedAt, config.timeoutMs, attempt.requestDeadline);
        if (isStreamed(paused)) {
          return streamAttempt(ctx, services, paused, () => paused.loop.resume());
        }
        return runToAnswer(ctx, paused, () => paused.loop.resume());
      }
      const caller = callerOf(ctx, services);
      if (route.format !== 'responses') await refuseUnreachableServers(route, caller, tools);
      const callerTools = meteredTools(ctx, tools.forCaller(caller, ctx.get(REQUEST_SPAN), ctx.id));
      const requested = typeof body.max_tool_calls === 'number' && body.max_tool_calls >= 0 ? Math.floor(body.max_tool_calls) : Infinity;
      const startedAt = Date.now();
      const limits: LoopLimits = {
        maxIterations: config.maxIterations ?? 10,
        maxToolCalls: Math.min(requested, config.maxToolCalls ?? 20),
        deadline: loopDeadline(startedAt, config.timeoutMs, attempt.requestDeadline),
        // parallel_tool_calls: false runs a turn's calls one after the other
        parallelCalls: body.parallel_tool_calls === false ? 1 : (config.parallelCalls ?? 4),
      };
      // what a model call of the loop uses of the target attempt it runs in (the next one's after a fallback);
      // `accepted`: a streamed loop's hook, awaited once a model call answered 2xx (the caller's stream may start)
      const state: { attempt: Attempt; accepted?: () => Promise<void> } = { attempt };
      const callModel = async (request: Json, sink?: RoundSink): Promise<Json> => {
        const current = state.attempt;
        const modelRequest = route.modelRequest(request);
        const callDeadline = performance.now() + (limits.deadline - Date.now());
        const enter = () => {
          ctx.set(BODY, modelRequest);
          ctx.set(BODY_CHANGED, true);
          // a model call ends by the loop's time limit too (forward aborts it then)
          ctx.set(DEADLINE, callDeadline);
        };
        const leave = () => {
          ctx.set(BODY, current.body);
          ctx.set(BODY_CHANGED, current.changedBefore);
          ctx.set(DEADLINE, current.requestDeadline);
        };
        enter();
        let answer: Json;
        const started = performance.now();
        let generated: StreamNotes | undefined;
        try {
          await current.next();
          const got = modelAnswer(ctx);
          if (state.accepted && (got?.kind === 'stream' || (got?.kind === 'json' && got.status >= 200 && got.status < 300))) {
            // the stages before this one see the request as it was while they finish with the caller's stream
            leave();
            await state.accepted();
            enter();
          }
          // a streamed call's text goes to the caller as it comes; its whole answer is read like a JSON one
          if (sink && got?.kind === 'stream') {
            generated = noteStreamText(got);
            answer = await readRound(got.parts, route.format, modelRequest, sink);
          } else answer = answerOf(ctx);
        } catch (err) {
          // a stream cut before its answer was whole (the caller went away, the time limit): billed for what it generated
          if (generated) ctx.get(METER)?.noteCutModelCall(ctx, modelRequest, generated.text(), started, failedStatus(ctx, err));
          // a call that failed: a part of the request that costs nothing
          else ctx.get(METER)?.noteFailedModelCall(ctx, failedStatus(ctx, err), started);
          throw err;
        } finally {
          leave();
        }
        const read = route.loopAnswer(answer, request);
        // each model call is a part of the request in the usage ledger
        ctx.get(METER)?.noteModelCall(ctx, read.usage, started);
        noteCallTokens(ctx, read.usage);
        return read;
      };
      ctx.set(ANSWERED_BY_GATEWAY, true);
      const budgetSpent = budgetCheck(ctx, services);
      const loopOf = (events: LoopEvents, onModelCall?: () => void) =>
        new ResponsesLoop({
          body: route.loopBody,
          original: route.loopBody,
          entries: route.entries,
          tools: callerTools,
          limits,
          budgetSpent,
          callerSignal: ctx.signal,
          streamed: body.stream === true,
          callModel: onModelCall
            ? async (request, sink) => {
                try {
                  return await callModel(request, sink);
                } finally {
                  onModelCall();
                }
              }
            : callModel,
          events,
        });
      if (body.stream !== true) {
        const loop = loopOf(SILENT_EVENTS);
        const run: PausedLoop = Object.assign(state, { loop, route, limits, startedAt });
        return runToAnswer(ctx, run, () => loop.run());
      }
      // Streamed: the loop runs in this attempt until its first model call answered (or the loop
      // ended without one); only then does the caller's stream start, so a failed first call
      // falls back like a plain stream. The rest runs as the edge reads.
      const events = route.events();
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      const answer = modelStream(
        ctx,
        200,
        route.format,
        (body.stream_options as { include_usage?: unknown } | null | undefined)?.include_usage === true,
        lazily(events, open),
        undefined,
        route.format === 'responses' ? body : undefined,
      );
      if (route.format === 'chat' && ctx.get(USAGE_NOT_ASKED)) answer.hiddenUsage = true;
      // each model call's own answer stays out of ctx.response: the edge writes this stream
      const loop = loopOf(events, () => {
        if (!streamed.settle) ctx.response = answer;
      });
      const streamed: StreamedLoop = Object.assign(state, { loop, route, limits, startedAt, events, answer, gate });
      return streamAttempt(ctx, services, streamed, () => loop.run());
    };
    return (ctx, next) => {
      const nativeApi = OPERATIONS[ctx.endpoint.operation];
      if (!nativeApi) return next();
      const reading = ensureJsonBody(ctx, bodyLimit);
      if (reading) return reading.then(() => (passesBy(ctx) ? next() : looped(ctx, next, nativeApi)));
      return passesBy(ctx) ? next() : looped(ctx, next, nativeApi);
    };
  },
});

/** The status a failed model call of the loop came to: its answer's, its error's, 499 when the caller went away. */
function failedStatus(ctx: ModelContext, err: unknown): number {
  if (err instanceof ModelFailure && 'status' in err.answer) return err.answer.status;
  if (ctx.callerGone) return 499;
  return isAnswerError(err) ? err.status : 502;
}

/** The caller's tools, each call known to the request's meter while it runs (its end is a part of the request in the usage ledger). */
function meteredTools(ctx: ModelContext, inner: CallerTools): CallerTools {
  const meter = ctx.get(METER);
  if (!meter) return inner;
  return {
    list: (server, signal) => inner.list(server, signal),
    call: async (server, tool, args, signal) => {
      const ended = meter.toolCallStarted(ctx);
      try {
        return await inner.call(server, tool, args, signal);
      } finally {
        ended();
      }
    },
  };
}

/** What a model call of a loop uses of the target attempt it runs in. */
interface Attempt {
  /** The stages after this one, for this attempt's target. */
  next: () => Promise<void>;
  /** The request's body, slots and deadline as this attempt had them (restored after each model call). */
  body: Json;
  changedBefore: boolean | undefined;
  requestDeadline: number | undefined;
}

/** A loop, as the attempt that runs it sees it (and the next attempt, should its model call fail). */
interface PausedLoop {
  attempt: Attempt;
  /** A streamed loop's hook once a model call answered 2xx (unset after the first). */
  accepted?: () => Promise<void>;
  loop: ResponsesLoop;
  route: LoopRoute;
  limits: LoopLimits;
  /** When the loop started (epoch ms): its time limit counts from then. */
  startedAt: number;
}

/** A streamed loop: the caller's stream, and the attempt waiting for its first model call's answer. */
interface StreamedLoop extends PausedLoop {
  events: RouteEvents;
  /** The caller's stream (written by the edge once the fallback accepted it). */
  answer: ModelStreamAnswer;
  /** Settles when the edge starts reading the caller's stream. */
  gate: Promise<void>;
  /**
   * Set while an attempt waits for the loop's first model call: called with nothing when the
   * call answered 2xx or the loop ended without one (the caller's stream starts), or with the
   * failure of the call (nothing was written to the caller: the routing decides what follows).
   */
  settle?: (failure: unknown) => void;
}

function isStreamed(run: PausedLoop): run is StreamedLoop {
  return (run as StreamedLoop).events !== undefined;
}

/** Waits until the edge reads the caller's stream, or the loop stops (its time limit, the caller gone): the caller may never read it. */
function untilOpenOrStopped(gate: Promise<void>, stopped: AbortSignal): Promise<void> {
  if (stopped.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      stopped.removeEventListener('abort', done);
      resolve();
    };
    stopped.addEventListener('abort', done, { once: true });
    void gate.then(done);
  });
}

/**
 * One target attempt of a streamed loop: runs (or resumes) it until its model call answered
 * 2xx, then hands the caller's stream to the stages before (the rest of the loop runs as the
 * edge reads). A model call that fails before that fails this attempt as a plain stream's
 * would: a non-2xx answer is the answer; a thrown failure goes to the routing, the loop kept for
 * the next target (no tool runs again). Once the caller's stream has started, a failure ends
 * it with the route's error event.
 */
async function streamAttempt(ctx: ModelContext, services: GatewayServices, run: StreamedLoop, go: () => Promise<Json>): Promise<void> {
  const first = new Promise<unknown>((resolve) => (run.settle = resolve));
  const settled = (failure: unknown): boolean => {
    const settle = run.settle;
    if (!settle) return false;
    run.settle = undefined;
    settle(failure);
    return true;
  };
  // the first model call that answers 2xx starts the caller's stream; the loop goes on once the edge reads it
  run.accepted = () => {
    run.accepted = undefined;
    settled(undefined);
    return untilOpenOrStopped(run.gate, run.loop.stopped);
  };
  void (async () => {
    let response: Json;
    try {
      response = run.route.final(await go());
    } catch (thrown) {
      const err: unknown = thrown ?? new Error('The tool loop failed.');
      // nothing was written to the caller: this attempt fails with it
      if (settled(err)) return;
      if (err instanceof CallerGone) return run.events.fail({ message: 'The caller went away.' });
      const failure =
        err instanceof ModelFailure ? failureBody(err.answer) : err instanceof GatewayError ? { code: err.code, message: err.message } : { message: 'The tool loop failed.' };
      if (!(err instanceof ModelFailure) && !(err instanceof GatewayError)) services.logger.warn({ requestId: ctx.id, err: (err as Error)?.message }, 'tool loop failed');
      return run.events.fail(failure);
    }
    settled(undefined);
    run.events.end(response);
  })();
  const failure = await first;
  if (failure === undefined) {
    ctx.response = run.answer;
    return;
  }
  if (failure instanceof ModelFailure) {
    ctx.response = failure.answer;
    return;
  }
  if (failure instanceof CallerGone) throw callerGoneError(ctx.get(TARGET)?.provider);
  if (run.loop.resumable) pausedLoops.set(ctx, run);
  throw failure;
}

/**
 * Loops whose model call failed in one target attempt, by request: when the routing moves on
 * (a fallback), the tool-loop stage runs again for the next target and makes that call there,
 * keeping the rounds before it (the tools that ran are not run again). When it does not, the
 * entry goes with the request.
 */
const pausedLoops = new WeakMap<object, PausedLoop>();

/**
 * The loop's end (epoch ms): its own time limit (timeoutMs from its start) or the attempt's
 * deadline (DEADLINE is on performance.now()'s clock), whichever comes first.
 */
function loopDeadline(startedAt: number, timeoutMs: number | undefined, requestDeadline: number | undefined): number {
  return Math.min(startedAt + (timeoutMs ?? 120_000), requestDeadline === undefined ? Infinity : Date.now() + (requestDeadline - performance.now()));
}

/**
 * Runs (or resumes) a loop that is not streamed to the caller's answer. A failed model call
 * answer (not 2xx) is the answer; a failed model call that the routing may try elsewhere is
 * thrown, the loop kept for the next target's attempt.
 */
async function runToAnswer(ctx: ModelContext, run: PausedLoop, go: () => Promise<Json>): Promise<void> {
  try {
    ctx.response = { kind: 'json', status: 200, body: run.route.final(await go()) };
  } catch (err) {
    if (err instanceof ModelFailure) ctx.response = err.answer;
    else if (!(err instanceof CallerGone)) {
      if (run.loop.resumable) pausedLoops.set(ctx, run);
      throw err;
    }
  }
}

/** The error object of a failed model answer. */
function failureBody(answer: NonNullable<ModelContext['response']>): Json {
  const body = answer.kind === 'json' ? (answer.body ?? (answer.raw ? safeParse(answer.raw.toString('utf8')) : undefined)) : undefined;
  const error = (body as { error?: { code?: unknown; message?: unknown; param?: unknown } | null } | undefined)?.error;
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
function lazily<T>(parts: AsyncIterable<T>, start: () => void): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      const inner = parts[Symbol.asyncIterator]();
      let started = false;
      return {
        next: () => {
          if (!started) {
            started = true;
            start();
          }
          return inner.next();
        },
        return: async () => (await inner.return?.()) ?? { done: true, value: undefined },
      };
    },
  };
}
