import type { Operation } from './operations.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'OPTIONS';

/** A provider-routed route of the contract (section 2). */
export interface RouteSpec {
  method: Method;
  /** The path with `{param}` segments, e.g. /v1/files/{file_id}. */
  path: string;
  /** The contract's spelling, e.g. "POST /v1/files/{file_id}". */
  key: string;
  operation: Operation;
  body: 'json' | 'multipart' | 'none';
  /** Request schema under schema/requests/, for JSON and multipart routes. */
  schema?: string;
  /**
   * The wire format of the route's answers when it is not OpenAI's: `anthropic` routes answer
   * Anthropic's shapes (and its error shape when the request carries anthropic-version).
   */
  format?: 'anthropic';
  /** An upload that names its model in a form field (`model`): with a gateway key, routed by it as JSON routes are. */
  modelField?: true;
  /**
   * With a gateway key and no provider named, answered from what the gateway keeps (the
   * catalogue's model list, the responses it keeps): no x-gateway-provider is asked for.
   */
  keptByGateway?: true;
}

/**
 * Whether a request with a gateway key (and no provider or routing config named) is routed by
 * the model it names: every JSON route, and the uploads that carry a model field.
 */
export function namesItsModel(spec: { body: string; modelField?: true }): boolean {
  return spec.body === 'json' || spec.modelField === true;
}

/** What the gateway serves itself on a route that is not provider-routed. */
export type GatewayOperation =
  | 'mcp'
  | 'auth.tokens.create'
  | 'auth.tokens.list'
  | 'auth.tokens.revoke'
  | 'auth.tokens.rotate'
  | 'auth.tokens.update'
  | AdminResourceOperation
  | 'admin.audit.list'
  | 'auth.tokens.block'
  | 'auth.tokens.unblock'
  | 'admin.credentials.list'
  | 'admin.credentials.create'
  | 'admin.credentials.delete'
  | 'admin.credentials.test'
  | 'admin.usage'
  | 'admin.session.create'
  | 'admin.session.retrieve'
  | 'admin.session.delete'
  | 'admin.session.oidc'
  | 'admin.session.oidc.callback'
  | 'admin.requests.list'
  | 'admin.requests.stream'
  | 'admin.requests.retrieve'
  | 'admin.config'
  | 'admin.config.validate'
  | 'admin.config.reload'
  | 'admin.models'
  | 'admin.mcp.servers.list'
  | 'admin.mcp.tools.list'
  | 'ui'
  | 'admin.mcp.tools.approve'
  | 'admin.mcp.prompts.approve'
  | 'admin.mcp.connections.list'
  | 'mcp.connections.list'
  | 'mcp.connections.create'
  | 'mcp.connections.delete'
  | 'mcp.connections.callback'
  | 'me'
  | 'models.retrieve'
  | 'oauth.protected_resource'
  | 'oauth.authorization_server'
  | 'oauth.jwks'
  | 'oauth.authorize'
  | 'oauth.login'
  | 'oauth.callback'
  | 'oauth.consent'
  | 'oauth.token'
  | 'oauth.revoke'
  | 'oauth.register'
  | 'health'
  | 'ready'
  | 'metrics'
  | 'not_found';

/** The admin API's resources served as JSON CRUD (contract §8). */
export const ADMIN_RESOURCES = ['organizations', 'teams', 'users', 'budgets'] as const;
export type AdminResource = (typeof ADMIN_RESOURCES)[number];
export type AdminResourceOperation = 'admin.create' | 'admin.list' | 'admin.retrieve' | 'admin.update' | 'admin.delete';

/** A route of the gateway's own (the tool-server endpoint, token operations, ops, unknown routes). */
export interface GatewayRouteSpec {
  method: Method | '*';
  path: string;
  key: string;
  operation: GatewayOperation;
  body: 'json' | 'none';
}

export type AnyRouteSpec = RouteSpec | GatewayRouteSpec;

function route(method: Method, path: string, operation: Operation, body: RouteSpec['body'], schema?: string, format?: RouteSpec['format'], modelField?: true): RouteSpec {
  const spec: RouteSpec = { method, path, key: `${method} ${path}`, operation, body, schema };
  if (format) spec.format = format;
  if (modelField) spec.modelField = modelField;
  return spec;
}

/** A route that a gateway key alone reaches (RouteSpec.keptByGateway). */
function kept(spec: RouteSpec): RouteSpec {
  spec.keptByGateway = true;
  return spec;
}

function own(method: Method, path: string, operation: GatewayOperation): GatewayRouteSpec {
  return { method, path, key: `${method} ${path}`, operation, body: 'none' };
}

export const PROVIDER_ROUTES: RouteSpec[] = [
  route('POST', '/v1/chat/completions', 'chat.completions', 'json', 'requests/chat-completions.schema.json'),
  route('POST', '/v1/completions', 'completions', 'json', 'requests/completions.schema.json'),
  route('POST', '/v1/embeddings', 'embeddings', 'json', 'requests/embeddings.schema.json'),
  route('POST', '/v1/images/generations', 'images.generations', 'json', 'requests/images-generations.schema.json'),
  route('POST', '/v1/images/edits', 'images.edits', 'multipart', 'requests/images-edits.schema.json', undefined, true),
  route('POST', '/v1/audio/speech', 'audio.speech', 'json', 'requests/audio-speech.schema.json'),
  route('POST', '/v1/audio/transcriptions', 'audio.transcriptions', 'multipart', 'requests/audio-transcriptions.schema.json', undefined, true),
  route('POST', '/v1/audio/translations', 'audio.translations', 'multipart', 'requests/audio-translations.schema.json', undefined, true),
  route('POST', '/v1/files', 'files.create', 'multipart', 'requests/files-upload.schema.json'),
  route('GET', '/v1/files', 'files.list', 'none'),
  route('GET', '/v1/files/{file_id}', 'files.retrieve', 'none'),
  route('DELETE', '/v1/files/{file_id}', 'files.delete', 'none'),
  route('GET', '/v1/files/{file_id}/content', 'files.content', 'none'),
  route('POST', '/v1/batches', 'batches.create', 'json', 'requests/batches-create.schema.json'),
  route('GET', '/v1/batches', 'batches.list', 'none'),
  route('GET', '/v1/batches/{batch_id}', 'batches.retrieve', 'none'),
  route('POST', '/v1/batches/{batch_id}/cancel', 'batches.cancel', 'none'),
  route('POST', '/v1/fine_tuning/jobs', 'fine_tuning.jobs.create', 'json', 'requests/fine-tuning-jobs-create.schema.json'),
  route('GET', '/v1/fine_tuning/jobs', 'fine_tuning.jobs.list', 'none'),
  route('GET', '/v1/fine_tuning/jobs/{job_id}', 'fine_tuning.jobs.retrieve', 'none'),
  route('POST', '/v1/fine_tuning/jobs/{job_id}/cancel', 'fine_tuning.jobs.cancel', 'none'),
  route('GET', '/v1/fine_tuning/jobs/{job_id}/events', 'fine_tuning.jobs.events', 'none'),
  kept(route('GET', '/v1/models', 'models.list', 'none')),
  route('POST', '/v1/responses', 'responses.create', 'json', 'requests/responses-create.schema.json'),
  kept(route('GET', '/v1/responses/{response_id}', 'responses.retrieve', 'none')),
  kept(route('DELETE', '/v1/responses/{response_id}', 'responses.delete', 'none')),
  kept(route('POST', '/v1/responses/{response_id}/cancel', 'responses.cancel', 'none')),
  kept(route('GET', '/v1/responses/{response_id}/input_items', 'responses.input_items', 'none')),
  route('POST', '/v1/messages', 'messages.create', 'json', 'requests/messages-create.schema.json', 'anthropic'),
  route('POST', '/v1/rerank', 'rerank', 'json', 'requests/rerank.schema.json'),
  route('POST', '/v1/moderations', 'moderations', 'json', 'requests/moderations.schema.json'),
  route('POST', '/v1/messages/count_tokens', 'messages.count_tokens', 'json', 'requests/messages-count-tokens.schema.json', 'anthropic'),
];

const MCP_METHODS: Method[] = ['POST', 'GET', 'DELETE', 'OPTIONS'];

/** The routes the gateway serves itself (contract sections 1 and 6). */
export const GATEWAY_ROUTES: GatewayRouteSpec[] = [
  ...MCP_METHODS.map((m) => own(m, '/mcp', 'mcp')),
  ...MCP_METHODS.map((m) => own(m, '/mcp/{server}', 'mcp')),
  own('POST', '/v1/auth/tokens', 'auth.tokens.create'),
  own('GET', '/v1/auth/tokens', 'auth.tokens.list'),
  own('DELETE', '/v1/auth/tokens/{id}', 'auth.tokens.revoke'),
  own('POST', '/v1/auth/tokens/{id}/rotate', 'auth.tokens.rotate'),
  own('PATCH', '/v1/auth/tokens/{id}', 'auth.tokens.update'),
  ...ADMIN_RESOURCES.flatMap((r) => [
    own('POST', `/v1/admin/${r}`, 'admin.create'),
    own('GET', `/v1/admin/${r}`, 'admin.list'),
    own('GET', `/v1/admin/${r}/{id}`, 'admin.retrieve'),
    own('PATCH', `/v1/admin/${r}/{id}`, 'admin.update'),
    own('DELETE', `/v1/admin/${r}/{id}`, 'admin.delete'),
  ]),
  own('GET', '/v1/admin/audit', 'admin.audit.list'),
  own('POST', '/v1/auth/tokens/{id}/block', 'auth.tokens.block'),
  own('POST', '/v1/auth/tokens/{id}/unblock', 'auth.tokens.unblock'),
  own('GET', '/v1/admin/credentials', 'admin.credentials.list'),
  own('POST', '/v1/admin/credentials', 'admin.credentials.create'),
  own('DELETE', '/v1/admin/credentials/{name}', 'admin.credentials.delete'),
  own('POST', '/v1/admin/credentials/{name}/test', 'admin.credentials.test'),
  own('GET', '/v1/admin/usage', 'admin.usage'),
  own('POST', '/v1/admin/session', 'admin.session.create'),
  own('GET', '/v1/admin/session', 'admin.session.retrieve'),
  own('DELETE', '/v1/admin/session', 'admin.session.delete'),
  own('GET', '/v1/admin/session/oidc', 'admin.session.oidc'),
  own('GET', '/v1/admin/session/oidc/callback', 'admin.session.oidc.callback'),
  own('GET', '/v1/admin/requests', 'admin.requests.list'),
  own('GET', '/v1/admin/requests/stream', 'admin.requests.stream'),
  own('GET', '/v1/admin/requests/{id}', 'admin.requests.retrieve'),
  own('GET', '/v1/admin/config', 'admin.config'),
  own('POST', '/v1/admin/config/validate', 'admin.config.validate'),
  own('POST', '/v1/admin/config/reload', 'admin.config.reload'),
  own('GET', '/v1/admin/models', 'admin.models'),
  own('GET', '/v1/admin/mcp/servers', 'admin.mcp.servers.list'),
  own('GET', '/v1/admin/mcp/servers/{name}/tools', 'admin.mcp.tools.list'),
  own('GET', '/ui', 'ui'),
  own('GET', '/ui/{asset}', 'ui'),
  own('GET', '/ui/{dir}/{asset}', 'ui'),
  own('POST', '/v1/admin/mcp/servers/{name}/tools/{tool}/approve', 'admin.mcp.tools.approve'),
  own('POST', '/v1/admin/mcp/servers/{name}/prompts/{prompt}/approve', 'admin.mcp.prompts.approve'),
  own('GET', '/v1/me', 'me'),
  // One catalogue model a gateway key may use (the SDKs' models.retrieve).
  own('GET', '/v1/models/{model}', 'models.retrieve'),
  // Each user's connections to tool servers of auth.upstream per_user_oauth, and the callback of their authorization servers.
  own('GET', '/v1/mcp/connections', 'mcp.connections.list'),
  own('POST', '/v1/mcp/connections/{server}', 'mcp.connections.create'),
  own('DELETE', '/v1/mcp/connections/{server}', 'mcp.connections.delete'),
  own('GET', '/oauth/upstream/callback', 'mcp.connections.callback'),
  own('POST', '/oauth/upstream/callback', 'mcp.connections.callback'),
  own('GET', '/v1/admin/mcp/connections', 'admin.mcp.connections.list'),
  ...(['GET', 'OPTIONS'] as const).flatMap((m) => [
    own(m, '/.well-known/oauth-protected-resource', 'oauth.protected_resource'),
    own(m, '/.well-known/oauth-protected-resource/mcp', 'oauth.protected_resource'),
    own(m, '/.well-known/oauth-protected-resource/mcp/{server}', 'oauth.protected_resource'),
  ]),
  // The authorization server's endpoints (their OPTIONS: CORS preflights of browser-based clients) and pages.
  ...(['GET', 'OPTIONS'] as const).map((m) => own(m, '/.well-known/oauth-authorization-server', 'oauth.authorization_server')),
  ...(['GET', 'OPTIONS'] as const).map((m) => own(m, '/oauth/jwks', 'oauth.jwks')),
  ...(['POST', 'OPTIONS'] as const).map((m) => own(m, '/oauth/token', 'oauth.token')),
  ...(['POST', 'OPTIONS'] as const).map((m) => own(m, '/oauth/revoke', 'oauth.revoke')),
  ...(['POST', 'OPTIONS'] as const).map((m) => own(m, '/oauth/register', 'oauth.register')),
  own('GET', '/oauth/authorize', 'oauth.authorize'),
  own('POST', '/oauth/login', 'oauth.login'),
  own('GET', '/oauth/callback', 'oauth.callback'),
  own('POST', '/oauth/consent', 'oauth.consent'),
  own('GET', '/health', 'health'),
  own('GET', '/ready', 'ready'),
  own('GET', '/metrics', 'metrics'),
];

/** Any route the table does not hold: answered 404 by the pipeline that claims "*". */
export const UNKNOWN_ROUTE: GatewayRouteSpec = { method: '*', path: '*', key: '*', operation: 'not_found', body: 'none' };

/** The route table: every route the gateway serves, each run through the pipeline that claims it; the catch-all last. */
export const ROUTES: AnyRouteSpec[] = [...PROVIDER_ROUTES, ...GATEWAY_ROUTES, UNKNOWN_ROUTE];

export function isProviderRoute(route: { operation: string }): route is RouteSpec {
  return PROVIDER_OPERATION_SET.has(route.operation);
}

const PROVIDER_OPERATION_SET: ReadonlySet<string> = new Set(PROVIDER_ROUTES.map((r) => r.operation));
