/**
 * The one place the tool loop reaches the gateway's tool servers: the MCP feature's aggregator,
 * seen through /mcp/<server> (the server's own tool names), so that every list entry and every
 * call goes through the same authorization, identity forwarding, audit, tracing and per-tool
 * charges as a client of /mcp/<server> would.
 */
import type { Identity } from '../../kernel/engine/context.js';
import type { GatewayServices } from '../../kernel/engine/services.js';
import { TRACING } from '../../kernel/engine/tracing.js';
import type { TraceSpan } from '../../kernel/observability/tracing.js';
import { MCP, type Aggregator, SEPARATOR, TOOL_GUARD } from '../mcp/index.js';
import { GatewayError } from '../../contract/errors/gateway-error.js';

type Json = Record<string, unknown>;

/** One tool a server listed to this caller. */
export interface ListedTool {
  name: string;
  description?: string;
  inputSchema: Json;
  annotations?: Json;
}

/** What a tool call came to: the text the model reads, and whether it failed (an error, or the tool's isError). */
export interface ToolOutcome {
  text: string;
  failed: boolean;
}

/** The gateway's tool servers as one caller uses them: listed and called for that caller, in the request's trace. */
export interface CallerTools {
  list(server: string, signal: AbortSignal): Promise<ListedTool[]>;
  call(server: string, tool: string, args: Json, signal: AbortSignal): Promise<ToolOutcome>;
}

export class GatewayTools {
  constructor(private readonly services: GatewayServices) {}

  /** The tools as `identity` uses them for request `requestId`; with traces on, each call a span under `span` (the request's). */
  forCaller(identity: Identity, span: TraceSpan | undefined, requestId: string): CallerTools {
    const tracing = this.services.get(TRACING);
    const traced = <T>(fn: () => Promise<T>): Promise<T> => (tracing && span ? tracing.runIn(span, fn) : fn());
    return {
      list: (server, signal) => traced(() => this.list(identity, server, signal)),
      call: (server, tool, args, signal) => traced(() => this.call(identity, server, tool, args, signal, requestId)),
    };
  }

  /** Whether `name` is an enabled tool server of the gateway config. */
  has(name: string): boolean {
    return this.services.get(MCP)?.has(name) === true;
  }

  /** Whether `identity` may use tool server `name` (its permissions reach it). */
  async mayUse(identity: Identity, name: string): Promise<boolean> {
    return (await this.aggregator()).maySee(identity, name);
  }

  private async aggregator(): Promise<Aggregator> {
    const endpoint = this.services.require(MCP);
    return (endpoint.parts ?? (await endpoint.load())).aggregator;
  }

  /** The tools of `server` the caller may see (every page). */
  async list(identity: Identity, server: string, signal: AbortSignal): Promise<ListedTool[]> {
    const aggregator = await this.aggregator();
    const view = { identity, server };
    if (!aggregator.maySee(identity, server)) throw new Error(`the credential may not use tool server ${server}`);
    const upstream = aggregator.pool.get(server);
    if (!upstream || upstream.status !== 'ready') {
      if (!upstream || !(await upstream.whenReady(signal))) throw new Error(`tool server ${server} is unavailable`);
    }
    const items = await aggregator.list('tools', view, { signal });
    return items
      .filter((item) => typeof item.name === 'string')
      .map((item) => ({
        name: String(item.name),
        ...(typeof item.description === 'string' ? { description: item.description } : {}),
        inputSchema: item.inputSchema && typeof item.inputSchema === 'object' ? (item.inputSchema as Json) : { type: 'object', properties: {} },
        ...(item.annotations && typeof item.annotations === 'object' ? { annotations: item.annotations as Json } : {}),
      }));
  }

  /**
   * Calls `tool` of `server` for the caller, through the /mcp tool guardrails: arguments a
   * guardrail denies never reach the server; a result it denies never reaches the model. A
   * refusal, an error of the server or a cancelled call is a failed outcome with its message
   * (what the model is told), never a thrown error.
   */
  async call(identity: Identity, server: string, tool: string, args: Json, signal: AbortSignal, requestId: string): Promise<ToolOutcome> {
    const guard = this.services.get(TOOL_GUARD);
    const guarded = `${server}${SEPARATOR}${tool}`;
    const checked = guard?.covers(guarded) ? guard : undefined;
    const run = { requestId, signal };
    const params = { name: tool, arguments: structuredClone(args) };
    try {
      if (checked) await checked.checkArguments(guarded, params, run);
    } catch (err) {
      return this.refused(err, requestId, guarded, 'arguments', `The call of ${tool} was refused by a guardrail`);
    }
    let result: Json;
    try {
      const aggregator = await this.aggregator();
      // the server's own call timeout applies; the loop's time limit aborts `signal` sooner when it comes first
      result = await aggregator.callTool({ identity, server, partOf: requestId }, params, { signal });
    } catch (err) {
      return { text: signal.aborted ? `The call of ${tool} was cancelled.` : String((err as Error)?.message ?? 'The tool call failed.'), failed: true };
    }
    try {
      if (checked) result = await checked.checkResult(guarded, result, run);
    } catch (err) {
      return this.refused(err, requestId, guarded, 'result', `The result of ${tool} was withheld by a guardrail`);
    }
    return { text: resultText(result), failed: result.isError === true };
  }

  /** A call or result a guardrail refused (or could not check), as the failed outcome the model reads. */
  private refused(err: unknown, requestId: string, tool: string, phase: 'arguments' | 'result', what: string): ToolOutcome {
    if (err instanceof GatewayError && err.code === 'guardrail_failed') {
      this.services.logger.warn({ requestId, tool, phase, reason: err.message }, 'mcp tool call refused by a guardrail');
      return { text: `${what}: ${err.message}`, failed: true };
    }
    this.services.logger.error({ requestId, tool, phase, err: (err as Error)?.message }, 'mcp tool guardrail failed');
    return { text: `${what}: it could not be checked.`, failed: true };
  }
}

/** A tools/call result as text: its text parts joined, other parts (and structured content alone) as JSON. */
function resultText(result: Json): string {
  const content = Array.isArray(result.content) ? (result.content as Json[]) : [];
  if (content.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return content.map((part) => (part?.type === 'text' && typeof part.text === 'string' ? part.text : JSON.stringify(part))).join('\n');
}
