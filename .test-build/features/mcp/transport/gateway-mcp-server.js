import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolRequestSchema, CompleteRequestSchema, GetPromptRequestSchema, ListPromptsRequestSchema, ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, ListToolsRequestSchema, ReadResourceRequestSchema, } from '@modelcontextprotocol/sdk/types.js';
import { RpcFailure, RPC } from '../rpc-errors.js';
import { GATEWAY_VERSION } from '../upstream/upstream-server.js';
/** The capabilities the gateway's endpoint advertises (lists always answer, empty when nothing is there). */
export const GATEWAY_CAPABILITIES = {
    tools: { listChanged: true },
    prompts: { listChanged: true },
    resources: { listChanged: true },
    completions: {},
};
/**
 * One JSON Schema validator for every Server: the SDK would otherwise build a new Ajv for each
 * (that is, for every stateless request). The gateway never asks clients for input, so it is
 * rarely used at all.
 */
const SHARED_VALIDATOR = new AjvJsonSchemaValidator();
/** The identity of the HTTP request that carried a JSON-RPC message (every request is authenticated). */
export function authInfoFor(identity) {
    return { token: '', clientId: `${identity.kind}:${identity.id}`, scopes: identity.scopes ?? [], extra: { identity } };
}
function identityOf(extra) {
    const identity = extra.authInfo?.extra?.identity;
    if (!identity)
        throw new RpcFailure(RPC.INTERNAL_ERROR, 'The request carries no authenticated identity.');
    return identity;
}
export function instructionsFor(aggregator, server) {
    if (server)
        return aggregator.pool.get(server)?.instructions ?? `Tool server ${server}, through the AI gateway.`;
    const names = aggregator.pool.names();
    return `The AI gateway's tool servers (${names.join(', ') || 'none'}). Tools, prompts and resources of server S are named S__<name>; resource URIs are mcpgw://S/<uri>.`;
}
/**
 * A low-level SDK Server for one legacy session (or one stateless request) whose handlers ask
 * the aggregator, as the caller of each HTTP request (its identity rides in authInfo).
 */
export function createGatewayMcpServer(aggregator, pinned) {
    const server = new Server({ name: pinned ? `ai-gateway/${pinned}` : 'ai-gateway', version: GATEWAY_VERSION }, { capabilities: GATEWAY_CAPABILITIES, instructions: instructionsFor(aggregator, pinned), jsonSchemaValidator: SHARED_VALIDATOR });
    const view = (extra) => ({ identity: identityOf(extra), server: pinned });
    const op = (params, extra) => {
        const meta = params?._meta;
        const progressToken = meta?.progressToken;
        return {
            signal: extra.signal,
            meta,
            onprogress: progressToken === undefined
                ? undefined
                : (p) => {
                    void extra.sendNotification({ method: 'notifications/progress', params: { ...p, progressToken } }).catch(() => undefined);
                },
        };
    };
    server.setRequestHandler(ListToolsRequestSchema, async (req, extra) => ({ tools: (await aggregator.list('tools', view(extra), op(req.params, extra))) }));
    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => (await aggregator.callTool(view(extra), req.params, op(req.params, extra))));
    server.setRequestHandler(ListPromptsRequestSchema, async (req, extra) => ({ prompts: (await aggregator.list('prompts', view(extra), op(req.params, extra))) }));
    server.setRequestHandler(GetPromptRequestSchema, async (req, extra) => (await aggregator.getPrompt(view(extra), req.params, op(req.params, extra))));
    server.setRequestHandler(ListResourcesRequestSchema, async (req, extra) => ({ resources: (await aggregator.list('resources', view(extra), op(req.params, extra))) }));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async (req, extra) => ({
        resourceTemplates: (await aggregator.list('resourceTemplates', view(extra), op(req.params, extra))),
    }));
    server.setRequestHandler(ReadResourceRequestSchema, async (req, extra) => (await aggregator.readResource(view(extra), req.params, op(req.params, extra))));
    server.setRequestHandler(CompleteRequestSchema, async (req, extra) => (await aggregator.complete(view(extra), req.params, op(req.params, extra))));
    return server;
}
//# sourceMappingURL=gateway-mcp-server.js.map