import type { Aggregator, OperationContext, View } from '../aggregator.js';
import type { McpRequestScope } from '../authorization.js';

type Result = Record<string, unknown>;

/** What a server must offer (or the session must have) for the gateway to serve a method. */
export type Offer = 'tools' | 'prompts' | 'resources' | 'subscribe' | 'completions' | 'logging';

/** The lists a server keeps, by their result key. */
export type ListKey = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';

/** What the gateway knows of one MCP method a client sends. */
export interface McpMethod {
  /** What the caller does, in the terms of the one authorization decision. */
  action: McpRequestScope['action'];
  /** A list method: the key of its result, and the server capability that offers it. */
  list?: { key: ListKey; capability: 'tools' | 'prompts' | 'resources' };
  /** What the request names on its server (`params.name`, `params.uri` or `params.ref`), and what that is. */
  target?: { field: 'name' | 'uri' | 'ref'; what: string };
  /** Served only within a session (the handshake era), never on a stateless request. */
  sessionOnly?: boolean;
  /** The answer may be kept by the caller (the stateless revision's ttl/cacheScope). */
  cacheable?: boolean;
  /** What the endpoint must advertise for the gateway to serve the method itself. */
  offer?: Offer;
  /** How the gateway serves a request of the method over its tool servers (lists: by `list`). */
  run?: (aggregator: Aggregator, view: View, params: Result, op: OperationContext) => Promise<Result>;
}

const LIST_DEFAULT: McpMethod = { action: 'list' };

/**
 * The one method table of the MCP endpoint: every method a client sends, whatever the
 * transport, is looked up here (what it asks of a server for authorization, which list it is,
 * what it names). The handshake, ping, logging, notifications and answers to a server's own
 * requests are `list` actions (any scope that reads may send them).
 */
export const MCP_METHODS: Readonly<Record<string, McpMethod>> = {
  'tools/list': { action: 'list', list: { key: 'tools', capability: 'tools' }, cacheable: true, offer: 'tools' },
  'prompts/list': { action: 'list', list: { key: 'prompts', capability: 'prompts' }, cacheable: true, offer: 'prompts' },
  'resources/list': { action: 'list', list: { key: 'resources', capability: 'resources' }, cacheable: true, offer: 'resources' },
  'resources/templates/list': { action: 'list', list: { key: 'resourceTemplates', capability: 'resources' }, cacheable: true, offer: 'resources' },
  'tools/call': { action: 'call', target: { field: 'name', what: 'tool' }, offer: 'tools', run: (a, view, params, op) => a.callTool(view, params, op) },
  'prompts/get': { action: 'read', target: { field: 'name', what: 'prompt' }, offer: 'prompts', run: (a, view, params, op) => a.getPrompt(view, params, op) },
  'resources/read': {
    action: 'read',
    target: { field: 'uri', what: 'resource' },
    cacheable: true,
    offer: 'resources',
    run: (a, view, params, op) => a.readResource(view, params, op),
  },
  'completion/complete': {
    action: 'read',
    target: { field: 'ref', what: 'completion reference' },
    offer: 'completions',
    run: (a, view, params, op) => a.complete(view, params, op),
  },
  'resources/subscribe': {
    action: 'read',
    target: { field: 'uri', what: 'resource' },
    sessionOnly: true,
    offer: 'subscribe',
    run: (a, view, params, op) => a.subscription(view, params.uri, true, op),
  },
  'resources/unsubscribe': {
    action: 'read',
    target: { field: 'uri', what: 'resource' },
    sessionOnly: true,
    offer: 'subscribe',
    run: (a, view, params, op) => a.subscription(view, params.uri, false, op),
  },
  'logging/setLevel': { action: 'list', sessionOnly: true, offer: 'logging', run: (a, view, params, op) => a.setLogLevel(view, params.level, op) },
  initialize: LIST_DEFAULT,
  ping: { action: 'list', run: async () => ({}) },
  'server/discover': LIST_DEFAULT,
  'subscriptions/listen': LIST_DEFAULT,
};

/** The table's entry of a method (an unknown method, a notification or an answer: a `list` action). */
export function methodOf(method: unknown): McpMethod {
  return (typeof method === 'string' && Object.hasOwn(MCP_METHODS, method) && MCP_METHODS[method]) || LIST_DEFAULT;
}

/** The list method of each list key. */
export const LIST_METHODS: Readonly<Record<ListKey, string>> = {
  tools: 'tools/list',
  prompts: 'prompts/list',
  resources: 'resources/list',
  resourceTemplates: 'resources/templates/list',
};

/** What a message asks of `server`, in the terms of the one authorization decision. */
export function scopeOf(message: { method?: unknown; params?: Record<string, unknown> }, server: string): McpRequestScope {
  const entry = methodOf(message.method);
  if (entry.action === 'call') return { action: 'call', server, tool: String(message.params?.name ?? '') };
  return { action: entry.action, server };
}

/** Whether a message is a list request. */
export function isListMethod(method: unknown): boolean {
  return methodOf(method).list !== undefined;
}

/** What a request names on its server (a tool or prompt name, a resource URI), for audit and pins. */
export function targetName(message: { method?: unknown; params?: Record<string, unknown> }): string | undefined {
  const target = methodOf(message.method).target;
  if (!target || target.field === 'ref') return undefined;
  const value = message.params?.[target.field];
  return typeof value === 'string' ? value : undefined;
}
