import type { Identity } from '../../../kernel/engine/context.js';
import type { AuditEntry, AuditLog } from '../audit.js';
import { authorize, type McpRequestScope } from '../authorization.js';
import { RPC, RpcFailure } from '../rpc-errors.js';

type Item = Record<string, unknown>;

/** Why a request is not served: the JSON-RPC error the caller gets, and the reason audited. */
export interface Refusal {
  reason: string;
  code: number;
  message: string;
  data?: unknown;
}

/**
 * What the gateway holds against a server's tools beyond the caller's grants (pinned
 * definitions): which tools a list may show, which calls may go.
 */
export interface ToolGate {
  /** Whether lists of `server` must pass through `screen` (the gate watches them). */
  watches(server: string): boolean;
  /** The tools of one `server` list a caller may see (what it sees is noted). */
  screen(server: string, tools: Item[], identity: Identity): Item[];
  /** The prompts of one `server` list a caller may see. */
  screenPrompts(server: string, prompts: Item[], identity: Identity): Item[];
  /** Why a call of `tool` on `server` may not go (undefined: it may). */
  refuses(server: string, tool: string): Refusal | undefined;
  /** Why a prompts/get of `prompt` on `server` may not go. */
  refusesPrompt(server: string, prompt: string): Refusal | undefined;
  /** The instructions of `server` that may be advertised, given those it sent (a held change: the pinned ones). */
  instructions(server: string, instructions: string | undefined, identity?: Identity): string | undefined;
}

/** The outcome of an allowed request, for audit and metrics. */
export type Outcome = 'ok' | 'error' | 'tool_error';

/**
 * The one access step of every MCP message, whatever path serves it (the gateway's own
 * sessions, the stateless revision, the relays): the caller's grants (scopes, permissions,
 * gateway-key grants) and the tool gate decide each request and each list entry; every
 * refusal and every ended request is audited and counted once, here.
 */
export class AccessStep {
  private gate: ToolGate | undefined;

  constructor(readonly audit: AuditLog) {}

  /** Holds tools against the gate from now on (pinned definitions). */
  useGate(gate: ToolGate | undefined): void {
    this.gate = gate;
  }

  /** Whether the caller may see anything of `server`. */
  maySee(identity: Identity, server: string): boolean {
    return authorize(identity, { action: 'list', server }).allowed;
  }

  /**
   * Decides one request (`method`, what it asks of its server): undefined when it may go,
   * else the refusal, audited.
   */
  admit(identity: Identity, method: string, scope: McpRequestScope, name = scope.tool, started = performance.now()): Refusal | undefined {
    const decision = authorize(identity, scope);
    let refusal: Refusal | undefined;
    if (!decision.allowed) refusal = { reason: decision.reason, code: RPC.FORBIDDEN, message: `Forbidden: ${decision.reason}.` };
    else if (scope.action === 'call' && scope.tool !== undefined && this.gate) refusal = this.gate.refuses(scope.server, scope.tool);
    else if (method === 'prompts/get' && name && this.gate) refusal = this.gate.refusesPrompt(scope.server, name);
    if (refusal) this.record(identity, { method, server: scope.server, name, allowed: false, reason: refusal.reason, outcome: 'denied', ms: performance.now() - started });
    return refusal;
  }

  /** As `admit`, throwing the refusal as the JSON-RPC error. */
  require(identity: Identity, method: string, scope: McpRequestScope, name?: string, started?: number): void {
    const refusal = this.admit(identity, method, scope, name, started);
    if (refusal) throw new RpcFailure(refusal.code, refusal.message, refusal.data);
  }

  /** An allowed request ended: audited (a tools/call counted and told to its observers); `partOf`: the gateway request it was made for. */
  ended(identity: Identity, method: string, server: string | undefined, name: string | undefined, outcome: Outcome, started: number, reason?: string, partOf?: string): void {
    this.record(identity, {
      method,
      server,
      name,
      allowed: true,
      outcome,
      ...(reason === undefined ? {} : { reason }),
      ...(partOf === undefined ? {} : { partOf }),
      ms: performance.now() - started,
    });
  }

  /** A whole list answered (how many entries shown, how many hidden). */
  listed(identity: Identity, method: string, server: string | undefined, shown: number, hidden: number, started: number): void {
    this.record(identity, { method, server, allowed: true, outcome: 'ok', ms: performance.now() - started, shown, hidden });
  }

  /** Whether `server` tool and prompt lists must be edited for this caller (grants narrow tools, or the gate watches). */
  screensLists(identity: Identity, server: string): boolean {
    return Array.isArray(identity.permissions?.tools) || (this.gate?.watches(server) ?? false);
  }

  /** The tools of one `server` list the caller may see: the gate's, then the caller's grants. */
  screenTools(identity: Identity, server: string, tools: Item[]): { items: Item[]; hidden: number } {
    const gated = this.gate?.watches(server) ? this.gate.screen(server, tools, identity) : tools;
    const items = Array.isArray(identity.permissions?.tools) ? gated.filter((t) => authorize(identity, { action: 'list', server, tool: String(t.name) }).allowed) : gated;
    return { items, hidden: tools.length - items.length };
  }

  /** A list answer (tools or prompts) of `server` with only what the caller may see. */
  screenListResult(identity: Identity, server: string, result: Item): Item {
    if (Array.isArray(result.tools)) return { ...result, tools: this.screenTools(identity, server, result.tools as Item[]).items };
    if (Array.isArray(result.prompts)) return { ...result, prompts: this.screenPrompts(identity, server, result.prompts as Item[]).items };
    return result;
  }

  /** The instructions of `server` a caller may be shown, given those the server sent (the gate's). */
  screenInstructions(identity: Identity | undefined, server: string, instructions: string | undefined): string | undefined {
    return this.gate?.watches(server) ? this.gate.instructions(server, instructions, identity) : instructions;
  }

  /** The prompts of one `server` list the caller may see (the gate's). */
  screenPrompts(identity: Identity, server: string, prompts: Item[]): { items: Item[]; hidden: number } {
    const items = this.gate?.watches(server) ? this.gate.screenPrompts(server, prompts, identity) : prompts;
    return { items, hidden: prompts.length - items.length };
  }

  private record(identity: Identity, entry: AuditEntry): void {
    this.audit.record(identity, entry);
  }
}
