import { objectOf } from '../../contract/json.js';
/**
 * What the tool loop does differently on each route: which of the request's tools (or
 * mcp_servers) name gateway tool servers, how a model call of the loop is asked in the route's
 * own format, how its answer reads as the loop's (Responses) answer, and what the caller gets.
 */
import { badRequest } from '../../contract/errors/gateway-error.js';
import { newResponseId, responseObject } from '../../contract/openai/responses-shapes.js';
import type { StreamFormat } from '../../contract/stream-format.js';
import type { StreamPart } from '../../contract/stream-parts.js';
import { ChatLoopEvents, chatCompletionOf, chatEntries, chatRequestOf, loopAnswerOfChat, loopBodyOfChat } from './chat-loop.js';
import { LoopEventStream, type LoopEvents } from './loop-events.js';
import { mcpToolsOf, type GatewayMcpTool } from './mcp-tools.js';
import { loopAnswerOfMessage, loopBodyOfMessages, mcpServersOf, messageOf, messagesRequestOf, MessagesLoopEvents } from './messages-loop.js';

type Json = Record<string, unknown>;

/** A stream of the loop's events in the route's format. */
export type RouteEvents = LoopEvents & AsyncIterable<StreamPart> & { end(answer: Json): void; fail(error: Json): void };

export interface LoopRoute {
  entries: GatewayMcpTool[];
  /** The request as the loop sees it (Responses-like: input, tools, model). */
  loopBody: Json;
  /** One model call, in the route's format. */
  modelRequest(loopRequest: Json): Json;
  /** The model's answer (the route's format) as the loop reads it. */
  loopAnswer(answer: Json, loopRequest: Json): Json;
  /** The loop's response as the caller's answer. */
  final(response: Json): Json;
  events(): RouteEvents;
  format: StreamFormat;
}

/** Where the request is, for telling the gateway's own URLs from outside ones. */
export interface RouteSite {
  base: string;
  isServer(name: string): boolean;
  /** Whether the attempt's provider runs the route's outside MCP servers itself (openai on /v1/responses, anthropic on /v1/messages). */
  runsOutsideServers: boolean;
}

function refuseOutside(label: string, who: string): never {
  throw badRequest(
    `The MCP server "${label}" is outside this gateway: only a provider that runs MCP servers itself (${who}) can take it. Name a tool server of the gateway (its /mcp/<server> URL, or server_label without server_url) instead.`,
    'tools',
  );
}

/** Whether a request names any MCP tool (Messages: any MCP server) at all: without one there is no loop and nothing to refuse. */
export function namesMcp(operation: string, body: Json): boolean {
  if (operation === 'messages.create') return Array.isArray(body.mcp_servers) && body.mcp_servers.length > 0;
  return Array.isArray(body.tools) && body.tools.some((t: Json) => t?.type === 'mcp');
}

/** The loop's route for a request, or undefined when it names no gateway tool server. */
export function loopRouteOf(operation: string, body: Json, site: RouteSite): LoopRoute | undefined {
  if (!namesMcp(operation, body)) return undefined;
  if (operation === 'messages.create') return messagesRoute(body, site);
  const tools = body.tools as Json[];
  const found = mcpToolsOf(tools, 'tools', site.isServer, site.base);
  const chat = operation === 'chat.completions';
  if (found.outside.length && (chat || !site.runsOutsideServers)) refuseOutside(found.outside[0]!, 'openai, on /v1/responses');
  if (found.gateway.length === 0) return undefined;
  if (chat) {
    let last: Json | undefined;
    return {
      entries: chatEntries(found.gateway, tools),
      loopBody: loopBodyOfChat(body),
      modelRequest: (request) => chatRequestOf(body, request),
      loopAnswer: (answer, request) => loopAnswerOfChat((last = answer), request),
      final: (response) => chatCompletionOf(response, last),
      events: () => new ChatLoopEvents(String(body.model ?? ''), objectOf(body.stream_options).include_usage === true),
      format: 'chat',
    };
  }
  return {
    entries: found.gateway,
    loopBody: body,
    modelRequest: (request) => request,
    loopAnswer: (answer) => answer,
    final: (response) => response,
    events: () => {
      const events = new LoopEventStream();
      events.start(
        responseObject({ id: newResponseId(), createdAt: Math.floor(Date.now() / 1000), model: String(body.model ?? ''), status: 'in_progress', output: [], usage: null }, body),
      );
      return events;
    },
    format: 'responses',
  };
}

function messagesRoute(body: Json, site: RouteSite): LoopRoute | undefined {
  if (!Array.isArray(body.mcp_servers) || body.mcp_servers.length === 0) return undefined;
  const found = mcpServersOf(body.mcp_servers, site.isServer, site.base);
  if (found.outside.length && !site.runsOutsideServers) refuseOutside(found.outside[0]!, 'anthropic');
  if (found.gateway.length === 0) return undefined;
  const names = new Map(found.gateway.map((e) => [e.label, e.name ?? e.label]));
  let last: Json | undefined;
  return {
    entries: found.gateway,
    loopBody: loopBodyOfMessages(body),
    modelRequest: (request) => messagesRequestOf(body, request, found.outsideServers),
    loopAnswer: (answer) => loopAnswerOfMessage((last = answer)),
    final: (response) => messageOf(response, last, String(body.model ?? ''), names),
    events: () => new MessagesLoopEvents(String(body.model ?? ''), names),
    format: 'anthropic',
  };
}
