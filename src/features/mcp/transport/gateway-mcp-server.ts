import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import type { Identity } from '../../../kernel/engine/context.js';
import { redactAnswer } from '../../../kernel/errors/redact.js';
import type { Aggregator, OperationContext, View } from '../aggregator.js';
import { RpcFailure, RPC } from '../rpc-errors.js';
import { GATEWAY_VERSION } from '../upstream/upstream-server.js';
import { dispatchRequest } from '../dispatch/dispatcher.js';
import { MCP_METHODS, type Offer } from '../dispatch/method-table.js';
import type { SessionLinks } from '../relay/session-links.js';
import { runAnswerSteps, wantsAnswer, type AnswerSteps } from '../dispatch/answer-steps.js';
import { answerStepsOf } from '../session-owner.js';

/**
 * One JSON Schema validator for every Server: the SDK would otherwise build a new Ajv for each
 * (that is, for every stateless request). The gateway never asks clients for input, so it is
 * rarely used at all.
 */
const SHARED_VALIDATOR = new AjvJsonSchemaValidator();

/** The SDK's request schema of each method the gateway's own sessions serve (the methods themselves: the one method table). */
const SDK_SCHEMAS: Record<string, unknown> = {
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
  'prompts/list': ListPromptsRequestSchema,
  'prompts/get': GetPromptRequestSchema,
  'resources/list': ListResourcesRequestSchema,
  'resources/templates/list': ListResourceTemplatesRequestSchema,
  'resources/read': ReadResourceRequestSchema,
  'resources/subscribe': SubscribeRequestSchema,
  'resources/unsubscribe': UnsubscribeRequestSchema,
  'logging/setLevel': SetLevelRequestSchema,
  'completion/complete': CompleteRequestSchema,
};

function identityOf(extra: { authInfo?: AuthInfo }): Identity {
  const identity = extra.authInfo?.extra?.identity as Identity | undefined;
  if (!identity) throw new RpcFailure(RPC.INTERNAL_ERROR, 'The request carries no authenticated identity.');
  return identity;
}

/**
 * What an endpoint advertises: /mcp the union of what the caller's servers offer (tools,
 * prompts, resources, completions; list changes always, as servers come and go), /mcp/<server>
 * what that server offers. Servers not up yet count with tools (the gateway's core).
 */
export function capabilitiesFor(aggregator: Aggregator, pinned: string | undefined, identity?: Identity): ServerCapabilities {
  const out: ServerCapabilities = { tools: { listChanged: true } };
  for (const server of aggregator.serversOf({ identity: identity as Identity, server: pinned })) {
    if (identity && !aggregator.maySee(identity, server.name)) continue;
    const caps = server.capabilities;
    if (caps?.prompts) out.prompts = { listChanged: true };
    if (caps?.resources) out.resources = { ...out.resources, listChanged: true };
    if (caps?.resources?.subscribe) out.resources = { ...out.resources, subscribe: true };
    if (caps?.completions) out.completions = {};
    if (caps?.logging) out.logging = {};
  }
  return out;
}

/**
 * What an endpoint advertises as its instructions: /mcp/<server> that server's own (its
 * credentials masked, held against their pin: a change held under `pin: strict` advertises the
 * pinned text, or none), /mcp the servers the caller may use (only those: `identity`'s grants).
 */
export function instructionsFor(aggregator: Aggregator, server: string | undefined, identity?: Identity): string | undefined {
  if (server) {
    const upstream = aggregator.pool.get(server);
    const fallback = `Tool server ${server}, through the AI gateway.`;
    // Only a connected server's instructions are its own (a server that is down says nothing to pin).
    if (!upstream || upstream.status !== 'ready') return upstream?.instructions ?? fallback;
    const sent = upstream.instructions;
    const served = aggregator.access.screenInstructions(identity, server, sent === undefined ? undefined : redactAnswer(sent, upstream.secrets));
    return served ?? (sent === undefined ? fallback : undefined);
  }
  const names = aggregator.pool.names().filter((name) => !identity || aggregator.maySee(identity, name));
  return `The AI gateway's tool servers (${names.join(', ') || 'none'}). Tools, prompts and resources of server S are named S__<name>; resource URIs are mcpgw://S/<uri>.`;
}

/**
 * The dispatch's answer steps of the HTTP request on the answer of one of its requests (its
 * result, or the JSON-RPC error it failed with), before the SDK writes it.
 */
async function stepped(steps: AnswerSteps, id: string | number, answer: Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
  let message: Record<string, unknown>;
  try {
    message = { jsonrpc: '2.0', id, result: await answer };
  } catch (err) {
    if (!(err instanceof RpcFailure)) throw err;
    message = { jsonrpc: '2.0', id, error: { code: err.code, message: err.message, ...(err.data === undefined ? {} : { data: err.data }) } };
  }
  const changed = wantsAnswer(steps, message) ? ((await runAnswerSteps(steps, message)) ?? message) : message;
  if ('result' in changed) return changed.result as Record<string, unknown>;
  const error = (changed.error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  throw new RpcFailure(typeof error.code === 'number' ? error.code : RPC.INTERNAL_ERROR, String(error.message ?? 'The request failed.'), error.data);
}

/**
 * A low-level SDK Server for one legacy session (or one stateless request) whose handlers ask
 * the aggregator, as the caller of each HTTP request (its identity rides in authInfo).
 */
export function createGatewayMcpServer(aggregator: Aggregator, pinned: string | undefined, identity?: Identity, session?: (server: Server) => SessionLinks): Server {
  const pinnedServer = pinned ? aggregator.pool.get(pinned) : undefined;
  const info = pinnedServer?.serverInfo ?? { name: pinned ? `ai-gateway/${pinned}` : 'ai-gateway', version: GATEWAY_VERSION };
  const capabilities = pinnedServer?.capabilities ? pinnedServer.capabilities : capabilitiesFor(aggregator, pinned, identity);
  const server = new Server(info, {
    capabilities,
    instructions: instructionsFor(aggregator, pinned, identity),
    jsonSchemaValidator: SHARED_VALIDATOR,
  });
  // An aggregated session's own connections to its servers (its requests, logs, subscriptions).
  const links = session?.(server);
  const view = (extra: { authInfo?: AuthInfo }): View => ({ identity: identityOf(extra), server: pinned });
  // Progress notifications of a request are written before its answer: each handler waits for
  // the ones it sent (sendNotification is asynchronous; the answer must not overtake them).
  const sent = new WeakMap<OperationContext, Promise<unknown>>();
  const op = (
    params: Record<string, unknown> | undefined,
    extra: { signal: AbortSignal; requestId: string | number; sendNotification: (n: { method: string; params: Record<string, unknown> }) => Promise<void> },
  ): OperationContext => {
    const meta = params?._meta as Record<string, unknown> | undefined;
    const progressToken = meta?.progressToken;
    const ctx: OperationContext = { signal: extra.signal, meta, ...(links ? { session: links, requestId: extra.requestId } : {}) };
    if (progressToken !== undefined) {
      ctx.onprogress = (p) => {
        const before = sent.get(ctx) ?? Promise.resolve();
        sent.set(
          ctx,
          before.then(() => extra.sendNotification({ method: 'notifications/progress', params: { ...p, progressToken } })).catch(() => undefined),
        );
      };
    }
    return ctx;
  };
  const settled = async <T>(ctx: OperationContext, result: Promise<T>): Promise<T> => {
    try {
      return await result;
    } finally {
      await sent.get(ctx);
    }
  };
  // Every method of the one method table the endpoint offers is served by the one dispatcher;
  // the SDK refuses a handler for a capability not advertised, so only those advertised are set.
  const offers: Record<Offer, boolean> = {
    tools: !!capabilities.tools,
    prompts: !!capabilities.prompts,
    resources: !!capabilities.resources,
    completions: !!capabilities.completions,
    logging: !!links && !!capabilities.logging,
    subscribe: !!links && !!capabilities.resources?.subscribe,
  };
  for (const [method, schema] of Object.entries(SDK_SCHEMAS)) {
    const offer = MCP_METHODS[method]?.offer;
    if (!offer || !offers[offer]) continue;
    server.setRequestHandler(schema as typeof CallToolRequestSchema, async (req, extra) => {
      const params = (req.params ?? {}) as Record<string, unknown>;
      const ctx = op(params, extra);
      const answer = settled(ctx, dispatchRequest(aggregator, method, params, view(extra), ctx));
      const steps = answerStepsOf(extra.authInfo);
      return steps ? await stepped(steps, extra.requestId, answer) : await answer;
    });
  }
  return server;
}
