import type { McpConnectionsStageConfig } from '../../../generated/stages/mcp-connections.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { headerValue, IDENTITY, RESPONSE, type GatewayContext } from '../../../kernel/engine/context.js';
import { defineStage } from '../../../kernel/engine/stage.js';
import { badRequest, forbidden, GatewayError, notFound, unauthorized } from '../../../contract/errors/gateway-error.js';
import type { GatewayRouteSpec } from '../../../contract/routes.js';
import { publicBaseUrl } from '../../auth/index.js';
import { MCP } from '../mcp-services.js';
import { accountLabel, ownerOf } from '../session-owner.js';
import { readRequestBytes } from '../../../kernel/engine/request-body.js';
import type { UserConnections } from './user-connections.js';
import { RpcFailure } from '../rpc-errors.js';

const PAGE_HEADERS: Record<string, string> = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

const FORM_LIMIT = 16 * 1024;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string): Buffer {
  return Buffer.from(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body style="font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto"><h1>${escapeHtml(title)}</h1>${body}</body></html>`,
    'utf8',
  );
}

function connectedPage(server: string): Buffer {
  return page('Connected', `<p>Your account is connected to tool server <strong>${escapeHtml(server)}</strong>. You can close this window and retry the tool call.</p>`);
}

/**
 * Before anything is kept: whose gateway account the tool server's account is about to be
 * connected to. Someone who opened a link another person sent sees a name that is not theirs.
 */
function consentPage(server: string, label: string, code: string, state: string): Buffer {
  const hidden = `<input type="hidden" name="code" value="${escapeHtml(code)}"><input type="hidden" name="state" value="${escapeHtml(state)}">`;
  return page(
    'Connect a tool server',
    `<p>Your account at tool server <strong>${escapeHtml(server)}</strong> will be used by the gateway account <strong>${escapeHtml(label)}</strong>: its tool calls to that server will act as you.</p>` +
      `<p>Connect only if that gateway account is yours. If someone sent you this link, cancel.</p>` +
      `<form method="post" action="/oauth/upstream/callback">${hidden}<button type="submit" name="action" value="connect">Connect</button> <button type="submit" name="action" value="cancel">Cancel</button></form>`,
  );
}

function noQuery(ctx: GatewayContext, allowed: string[]): void {
  for (const name of ctx.query.keys()) if (!allowed.includes(name)) throw badRequest(`Unknown query parameter ${name.slice(0, 64)}.`, name.slice(0, 64));
}

/**
 * Each user's connections to tool servers of `auth.upstream: per_user_oauth` (the route's
 * operation says which): the caller's own list, a link to connect, disconnect; the callback the
 * tool server's authorization server sends the browser back to; every user's list for the admin.
 * Tokens are never shown. Without such a server every route is a 404.
 */
export default defineStage<McpConnectionsStageConfig, GatewayContext<GatewayRouteSpec>>({
  name: 'mcp-connections',
  description: "Each user's connections to per_user_oauth tool servers (/v1/mcp/connections, /oauth/upstream/callback, /v1/admin/mcp/connections).",
  schema: schemaDocument('stages/mcp-connections.schema.json'),
  reads: [IDENTITY],
  writes: [RESPONSE],
  terminal: true,
  once: true,
  create(_config, services) {
    const endpoint = services.require(MCP);
    const connections = async (): Promise<UserConnections> => {
      const parts = endpoint.hasServers ? await endpoint.load() : undefined;
      if (!parts?.connections) throw notFound('No tool server of this gateway takes per-user connections (auth.upstream per_user_oauth).');
      return parts.connections;
    };
    return async (ctx) => {
      try {
        await serve(ctx);
      } catch (err) {
        // The tool server's authorization server could not be discovered or reached.
        if (err instanceof RpcFailure) throw new GatewayError('service_unavailable', err.message);
        throw err;
      }
    };
    async function serve(ctx: GatewayContext<GatewayRouteSpec>): Promise<void> {
      const operation = ctx.endpoint.operation;
      if (operation === 'mcp.connections.callback') {
        // Other parameters an authorization server adds (session_state, authuser, iss...) are ignored.
        // The code and the state are credentials: masked in anything this request logs or answers,
        // except the consent page, which must carry them back in its form (no-store, no referrer).
        const params = ctx.method === 'POST' ? await formOf(ctx) : ctx.query;
        const credentials = ['code', 'state'].flatMap((name) => params.getAll(name).filter(Boolean));
        const hub = await connections();
        const html = (status: number, body: Buffer) => (ctx.response = { kind: 'binary', status, contentType: 'text/html; charset=utf-8', body, headers: PAGE_HEADERS });
        if (ctx.method === 'GET') {
          let shown: Buffer;
          try {
            // A refusal by the authorization server ends here; a code waits for the owner's consent.
            if (params.get('error')) await hub.complete(params);
            const { server, label } = await hub.pending(params);
            const code = params.get('code');
            if (!code) throw badRequest('code is required.', 'code');
            shown = consentPage(server, label, code, params.get('state')!);
          } catch (err) {
            ctx.secrets.push(...credentials);
            throw err;
          }
          html(200, shown);
          return;
        }
        ctx.secrets.push(...credentials);
        if (params.get('action') === 'cancel') {
          await hub.cancel(params);
          html(200, page('Not connected', '<p>Nothing was connected. You can close this window.</p>'));
          return;
        }
        const { server } = await hub.complete(params);
        html(200, connectedPage(server));
        return;
      }
      if (operation === 'admin.mcp.connections.list') {
        noQuery(ctx, ['limit']);
        const limit = limitOf(ctx);
        const data = await (await connections()).list(undefined, limit + 1);
        ctx.response = { kind: 'json', status: 200, body: { object: 'list', data: data.slice(0, limit), has_more: data.length > limit } };
        return;
      }
      const identity = ctx.identity;
      if (!identity) throw unauthorized('A gateway credential is required.');
      if (identity.kind === 'anonymous') throw forbidden('Per-user connections need an authenticated caller (auth is disabled).');
      const owner = ownerOf(identity);
      const server = ctx.params.server;
      if (operation === 'mcp.connections.list') {
        noQuery(ctx, []);
        ctx.response = { kind: 'json', status: 200, body: { object: 'list', data: await (await connections()).list(owner) } };
        return;
      }
      if (!server) throw badRequest('A tool server name is required.', 'server');
      noQuery(ctx, []);
      const hub = await connections();
      if (!hub.has(server)) throw notFound(`No tool server ${server.slice(0, 64)} takes per-user connections.`, 'server');
      if (operation === 'mcp.connections.create') {
        const url = await hub.connectUrl(server, owner, publicBaseUrl(ctx.req, services.config), undefined, accountLabel(identity));
        ctx.response = { kind: 'json', status: 200, body: { object: 'mcp.connect_link', server, connect_url: url } };
        return;
      }
      if (operation === 'mcp.connections.delete') {
        if (!(await hub.disconnect(owner, server))) throw notFound(`You hold no connection to tool server ${server.slice(0, 64)}.`, 'server');
        ctx.response = { kind: 'json', status: 200, body: { object: 'mcp.connection.deleted', server, deleted: true } };
        return;
      }
      throw new GatewayError('not_found', `No route ${ctx.method} ${ctx.path}.`);
    }
  },
});

function limitOf(ctx: GatewayContext): number {
  const text = ctx.query.get('limit');
  if (text === null) return 100;
  if (!/^\d{1,4}$/.test(text) || Number(text) < 1 || Number(text) > 1000) throw badRequest('limit must be an integer from 1 to 1000.', 'limit');
  return Number(text);
}

/** The consent form's body (application/x-www-form-urlencoded, small). */
async function formOf(ctx: GatewayContext): Promise<URLSearchParams> {
  const type = headerValue(ctx.headers, 'content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) throw badRequest('The request body must be application/x-www-form-urlencoded.', 'body');
  let raw: Buffer;
  try {
    raw = await readRequestBytes(ctx.req, FORM_LIMIT);
  } catch {
    throw badRequest(`The request body must be at most ${FORM_LIMIT} bytes.`, 'body');
  }
  return new URLSearchParams(raw.toString('utf8'));
}
