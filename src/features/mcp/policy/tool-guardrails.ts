import type { GatewayContext } from '../../../kernel/engine/context.js';
import type { Middleware } from '../../../kernel/engine/stage.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import { GatewayError } from '../../../contract/errors/gateway-error.js';
import { TextView, type GuardrailOutcome, type GuardrailRegistry } from '../../guardrails/index.js';
import { SEPARATOR } from '../naming.js';
import { MCP_ANSWER_STEPS, type AnswerStep } from '../dispatch/answer-steps.js';
import { isRequestId, mcpMessage, messageChanged, messagesOf, type JsonRpcId, type JsonRpcMessage } from './mcp-message.js';
import { argumentPieces, resultPieces } from './tool-text.js';
import { wildcard, type Wildcard } from '../../../kernel/text/wildcard.js';
import { defineService } from '../../../kernel/engine/services.js';

type Json = Record<string, unknown>;

/**
 * The JSON-RPC error code of a tool call or result a deny guardrail refused (the gateway's own
 * range, next to -32003 forbidden and -32004 server unavailable). `data` carries the contract's
 * error object (type guardrail_error, code guardrail_failed).
 */
export const GUARDRAIL_DENIED = -32005;

export const VERDICT_HEADER = 'x-gateway-guardrail-verdict';
/** Where a tool result says what the guardrails did to it (flagged or redacted). */
export const VERDICT_META = 'io.gateway/guardrail-verdict';

const RANK: Record<GuardrailOutcome, number> = { passed: 0, redacted: 1, flagged: 2 };

export interface ToolGuardrailSettings {
  /** Guardrail ids run on the arguments of every tools/call. */
  toolArguments: string[];
  /** Guardrail ids run on every tool result. */
  toolResults: string[];
  /** Only calls of these tools (`server__tool` names or patterns such as `server__*`); every tool when absent. */
  tools?: string[];
  bodyLimit: number;
}

function pattern(p: string): Wildcard {
  return wildcard(p);
}

interface ToolCall {
  id: JsonRpcId;
  /** server__tool, whichever endpoint it came through. */
  tool: string;
  message: JsonRpcMessage;
}

function toolCalls(body: unknown, pinned: string | undefined, covers: (tool: string) => boolean): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const m of messagesOf(body)) {
    if (m.method !== 'tools/call' || !isRequestId(m.id)) continue;
    const name = typeof m.params?.name === 'string' ? m.params.name : '';
    const tool = pinned ? `${pinned}${SEPARATOR}${name}` : name;
    if (covers(tool)) calls.push({ id: m.id, tool, message: m });
  }
  return calls;
}

function worse(a: GuardrailOutcome, b: GuardrailOutcome): GuardrailOutcome {
  return RANK[b] > RANK[a] ? b : a;
}

function rpcError(id: JsonRpcId, err: GatewayError): Json {
  return {
    jsonrpc: '2.0',
    id,
    error: { code: GUARDRAIL_DENIED, message: err.message, data: { type: err.type, code: err.code, message: err.message, param: null, provider: null } },
  };
}

/**
 * The /mcp tool guardrails as the gateway's own tool callers (the tool loop) apply them: the
 * same guardrails on the same calls (`tool` is server__tool), with no JSON-RPC in between.
 */
export interface ToolGuard {
  /** Whether the guardrails cover calls of `tool`. */
  covers(tool: string): boolean;
  /** Checks (and may mask in place) a call's `params.arguments`; a deny throws its guardrail_failed error. */
  checkArguments(tool: string, params: Json, run: { requestId: string; signal: AbortSignal }): Promise<GuardrailOutcome>;
  /** Checks a tool result: the result (masked, and marked in _meta when flagged or redacted); a deny throws its guardrail_failed error. */
  checkResult(tool: string, result: Json, run: { requestId: string; signal: AbortSignal }): Promise<Json>;
}

/** The guardrails of the MCP pipeline's guardrail stage, for the gateway's own tool callers (set when that stage has any). */
export const TOOL_GUARD = defineService<ToolGuard>('mcp-tool-guard');

/** The tool guardrails of `settings` as a ToolGuard. */
export function toolGuard(registry: GuardrailRegistry, settings: ToolGuardrailSettings): ToolGuard {
  const patterns = settings.tools?.map(pattern);
  return {
    covers: (tool) => !patterns || patterns.some((p) => p.test(tool)),
    async checkArguments(tool, params, run) {
      if (!settings.toolArguments.length) return 'passed';
      return registry.apply(settings.toolArguments, new TextView(argumentPieces(params)), {
        phase: 'input',
        requestId: run.requestId,
        signal: run.signal,
        subject: `call of tool ${tool}`,
      });
    },
    async checkResult(tool, result, run) {
      if (!settings.toolResults.length) return result;
      const outcome = await registry.apply(settings.toolResults, new TextView(resultPieces(result)), {
        phase: 'output',
        requestId: run.requestId,
        signal: run.signal,
        subject: `result of tool ${tool}`,
      });
      if (outcome === 'passed') return result;
      return { ...result, _meta: { ...((result._meta ?? {}) as Json), [VERDICT_META]: outcome } };
    },
  };
}

/**
 * Guardrails on MCP tool calls, as a stage of the MCP pipeline: `toolArguments` check the
 * strings of a tools/call's `arguments` before the call reaches its tool server (deny: the call
 * is answered with a JSON-RPC error, code -32005, and never sent; redact: the server gets the
 * masked arguments; flag: the call goes on, the answer carries x-gateway-guardrail-verdict);
 * `toolResults` check the text of the tool's result before it reaches the caller (deny: the
 * caller gets the JSON-RPC error instead of the result; redact: the masked result; flag and
 * redact also mark the result's `_meta["io.gateway/guardrail-verdict"]`). Other messages pass.
 */
export function toolGuardrails(registry: GuardrailRegistry, settings: ToolGuardrailSettings, logger: Logger, guard = toolGuard(registry, settings)): Middleware {
  const covers = guard.covers;
  const { toolArguments, toolResults } = settings;

  const denied = (ctx: GatewayContext, call: ToolCall, phase: string, err: GatewayError) =>
    logger.warn({ requestId: ctx.id, tool: call.tool, phase, reason: err.message }, 'mcp tool call refused by a guardrail');

  const checkArguments = (ctx: GatewayContext, call: ToolCall): Promise<GuardrailOutcome> =>
    guard.checkArguments(call.tool, call.message.params ?? {}, { requestId: ctx.id, signal: ctx.signal });

  /** The answer with its result checked (masked and marked, or the guardrail's JSON-RPC error); undefined when it passed as it was. */
  async function checkResult(ctx: GatewayContext, call: ToolCall, message: Json): Promise<Json | undefined> {
    const result = message.result;
    if (!result || typeof result !== 'object' || Array.isArray(result)) return undefined;
    let checked: Json;
    try {
      checked = await guard.checkResult(call.tool, result as Json, { requestId: ctx.id, signal: ctx.signal });
    } catch (err) {
      const failure = err instanceof GatewayError ? err : new GatewayError('internal_error', 'The gateway could not check the tool result.', { cause: err });
      if (failure.code === 'guardrail_failed') denied(ctx, call, 'result', failure);
      else logger.error({ requestId: ctx.id, tool: call.tool, err: (err as Error)?.message }, 'mcp tool result guardrail failed');
      return rpcError(call.id, failure);
    }
    return checked === result ? undefined : { ...message, result: checked };
  }

  /**
   * The step of the dispatch that checks the results of this request's covered calls: it wants
   * the answers to them (a result; an error passes), once each, and says its verdict in
   * x-gateway-guardrail-verdict while the answer's headers are not written yet.
   */
  function resultStep(ctx: GatewayContext, calls: ToolCall[]): AnswerStep {
    const byId = new Map(calls.map((c) => [c.id, c]));
    return {
      wants: (message) => isRequestId(message.id) && message.method === undefined && 'result' in message && byId.has(message.id),
      rewrite: async (message) => {
        const call = byId.get(message.id as JsonRpcId);
        if (!call) return undefined;
        byId.delete(call.id);
        const changed = await checkResult(ctx, call, message);
        const mark = ((changed?.result as Json | undefined)?._meta as Json | undefined)?.[VERDICT_META] as GuardrailOutcome | undefined;
        if (mark && !ctx.res.headersSent) {
          const current = ctx.res.getHeader(VERDICT_HEADER) as GuardrailOutcome | undefined;
          ctx.res.setHeader(VERDICT_HEADER, current ? worse(current, mark) : mark);
        }
        return changed;
      },
    };
  }

  return async (ctx, next) => {
    const body = await mcpMessage(ctx, settings.bodyLimit);
    const calls = toolCalls(body, ctx.params.server, covers);
    if (!calls.length) return next();
    let verdict: GuardrailOutcome = 'passed';
    if (toolArguments.length) {
      const refusals = new Map<JsonRpcId, GatewayError>();
      for (const call of calls) {
        try {
          verdict = worse(verdict, await checkArguments(ctx, call));
        } catch (err) {
          if (!(err instanceof GatewayError) || err.code !== 'guardrail_failed') throw err;
          denied(ctx, call, 'arguments', err);
          refusals.set(call.id, err);
        }
      }
      if (refusals.size) {
        answerRefused(ctx, body, refusals);
        return;
      }
    }
    if (verdict !== 'passed') ctx.responseHeaders[VERDICT_HEADER] = verdict;
    // A redacted argument changed the message in place (a flag may hide a redaction of another call).
    if (verdict !== 'passed') messageChanged(ctx);
    if (toolResults.length) {
      // Applied by the MCP transport, as a step of the dispatch, on each parsed answer it would write.
      const steps = ctx.get(MCP_ANSWER_STEPS);
      if (steps) steps.push(resultStep(ctx, calls));
      else ctx.set(MCP_ANSWER_STEPS, [resultStep(ctx, calls)]);
    }
    await next();
  };
}

/**
 * A body with a refused tool call gets an answer from the gateway alone (nothing reaches a
 * tool server): one JSON-RPC error per request of the body, the refused calls naming their
 * guardrail, the other requests of a batch saying they were not run.
 */
function answerRefused(ctx: GatewayContext, body: unknown, refusals: Map<JsonRpcId, GatewayError>): void {
  const replies = messagesOf(body)
    .filter((m) => typeof m.method === 'string' && isRequestId(m.id))
    .map((m) => {
      const id = m.id as JsonRpcId;
      const refusal = refusals.get(id);
      if (refusal) return rpcError(id, refusal);
      return rpcError(id, new GatewayError('guardrail_failed', 'Not run: another call of this batch was refused by a guardrail.'));
    });
  const text = JSON.stringify(Array.isArray(body) ? replies : replies[0]);
  const res = ctx.claimResponse();
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
