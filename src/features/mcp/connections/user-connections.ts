import { createHash, randomBytes } from 'node:crypto';
import type { McpServerAuth } from '../../../generated/gateway.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import type { Sealer } from '../../../kernel/store/sealer.js';
import { badRequest, GatewayError } from '../../../contract/errors/gateway-error.js';
import { RPC, RpcFailure } from '../rpc-errors.js';
import type { ConnectionRow, ConnectionStore } from './connection-store.js';
import { askTokenEndpoint, type TokenAnswer } from './token-endpoint.js';
import { discoverEndpoints, type AuthorizationEndpoints } from './discovery.js';

/** The JSON-RPC error of a call to a per_user_oauth server the caller has not connected (the gateway's own range). */
export const NOT_CONNECTED = -32007;
/** The gateway's callback, where the tool server's authorization server sends the browser back. */
export const CALLBACK_PATH = '/oauth/upstream/callback';
/** How long a connect link (its state) may be used. */
const STATE_TTL_MS = 10 * 60_000;
/** An access token is refreshed this long before it expires. */
const EARLY_MS = 60_000;
/** A caller's connect link is given again for this long (fewer states written: lists ask too), well within STATE_TTL_MS. */
const LINK_REUSE_MS = 2 * 60_000;
const MAX_LINKS = 10_000;

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

interface Held {
  access: string;
  refresh?: string;
}

/** A connection as the API shows it: never a token. */
export interface ConnectionView {
  object: 'mcp.connection';
  server: string;
  owner?: string;
  scope: string | null;
  expires_at: number | null;
  refreshable: boolean;
  created_at: number;
  updated_at: number;
}

/**
 * Each caller's connections to the tool servers of `auth.upstream: per_user_oauth`: the connect
 * link (the server's authorization endpoint with a single-use state bound to the caller and a
 * PKCE S256 challenge), the callback that trades the code for tokens, the caller's access token
 * for each call (refreshed shortly before it expires; concurrent calls share one refresh), and
 * the list and removal of connections. Tokens are sealed at rest; the owner is the caller's
 * gateway identity (`kind:id`).
 */
export class UserConnections {
  private readonly refreshing = new Map<string, Promise<string>>();
  /** The last connect link of each (owner, server) not yet used, while it may be given again. */
  private readonly links = new Map<string, { url: string; until: number }>();
  /** The discovered endpoints of servers that configure none (kept once found). */
  private readonly discovered = new Map<string, Promise<AuthorizationEndpoints>>();

  constructor(
    private readonly store: ConnectionStore,
    private readonly sealer: () => Sealer | undefined,
    /** The per_user_oauth servers: their auth settings and URL. */
    private readonly servers: ReadonlyMap<string, { auth: McpServerAuth; url: string }>,
    private readonly logger: Logger,
  ) {}

  has(server: string): boolean {
    return this.servers.has(server);
  }

  private box(): Sealer {
    const sealer = this.sealer();
    if (!sealer) throw new RpcFailure(RPC.SERVER_UNAVAILABLE, 'Per-user connections to tool servers need secrets.key.');
    return sealer;
  }

  private auth(server: string): McpServerAuth {
    const entry = this.servers.get(server);
    if (!entry) throw new GatewayError('not_found', `No tool server ${server.slice(0, 64)} takes per-user connections.`, { param: 'server' });
    return entry.auth;
  }

  /** The configured endpoints, or those the server's metadata names (RFC 9728, RFC 8414), found once. */
  private endpoints(server: string): Promise<AuthorizationEndpoints> {
    const auth = this.auth(server);
    if (auth.authorizationEndpoint && auth.tokenEndpoint) return Promise.resolve({ authorizationEndpoint: auth.authorizationEndpoint, tokenEndpoint: auth.tokenEndpoint });
    let found = this.discovered.get(server);
    if (!found) {
      found = discoverEndpoints(server, this.servers.get(server)!.url, auth.timeout ?? 10_000);
      this.discovered.set(server, found);
      // A failure is tried again on the next request.
      found.catch((err: Error) => {
        this.discovered.delete(server);
        this.logger.warn({ mcpServer: server, err: err.message }, 'the authorization server of a tool server could not be discovered');
      });
    }
    return found;
  }

  /** The link a caller opens to connect `server`: its authorization endpoint, with a fresh state bound to `owner`. */
  async connectUrl(server: string, owner: string, base: string, now = Date.now(), label?: string): Promise<string> {
    const auth = this.auth(server);
    const endpoints = await this.endpoints(server);
    const state = randomBytes(32).toString('base64url');
    const verifier = randomBytes(32).toString('base64url');
    const redirectUri = `${base}${CALLBACK_PATH}`;
    await this.store.saveState(sha256(state), owner, server, this.box().seal(JSON.stringify({ verifier, redirectUri, label: label ?? owner })), now + STATE_TTL_MS, now);
    const url = new URL(endpoints.authorizationEndpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', auth.clientId!);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('code_challenge', sha256(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('state', state);
    if (auth.scopes?.length) url.searchParams.set('scope', auth.scopes.join(' '));
    const resource = auth.resource ?? endpoints.resource;
    if (resource) url.searchParams.set('resource', resource);
    return url.toString();
  }

  /** The error a call answers when the caller holds no connection: its data carries the link to open (the same one for a while). */
  async notConnected(server: string, owner: string, base: string, label?: string): Promise<RpcFailure> {
    const key = `${owner}\n${server}\n${base}`;
    const now = Date.now();
    let link = this.links.get(key);
    if (!link || link.until <= now) {
      link = { url: await this.connectUrl(server, owner, base, now, label), until: now + LINK_REUSE_MS };
      this.links.delete(key);
      if (this.links.size >= MAX_LINKS) this.links.delete(this.links.keys().next().value!);
      this.links.set(key, link);
    }
    const url = link.url;
    return new RpcFailure(NOT_CONNECTED, `Not connected: open connect_url in a browser to connect your account to tool server ${server}, then retry.`, {
      server,
      connect_url: url,
    });
  }

  /**
   * GET /oauth/upstream/callback, before anything is kept: the server and the gateway account a
   * link's state would connect (the consent page shows them, so that someone sent another
   * person's link sees whose account it is before connecting theirs to it). Refuses an unknown,
   * used or expired state as `complete` does.
   */
  async pending(query: URLSearchParams, now = Date.now()): Promise<{ server: string; label: string }> {
    const state = singleState(query);
    const row = await this.store.peekState(sha256(state), now);
    if (!row) throw badRequest('This connect link is unknown, expired or already used: start again from the tool call.', 'state');
    const opened = this.box().open(row.data);
    if (!opened) throw badRequest('This connect link cannot be read (secrets.key changed): start again from the tool call.', 'state');
    const { label } = JSON.parse(opened) as { label?: string };
    return { server: row.server, label: label ?? row.owner };
  }

  /** The consent page's Cancel: the state is used up, nothing is kept. */
  async cancel(query: URLSearchParams, now = Date.now()): Promise<void> {
    await this.store.takeState(sha256(singleState(query)), now);
  }

  /**
   * POST /oauth/upstream/callback (the consent page's Connect): takes the state (single use, unexpired), trades the code for
   * the tokens (with the PKCE verifier) and keeps them for the state's owner. Answers the server
   * connected; refuses (contract shape) an unknown, used or expired state, or a refusal.
   */
  async complete(query: URLSearchParams, now = Date.now()): Promise<{ server: string }> {
    const state = singleState(query);
    const taken = await this.store.takeState(sha256(state), now);
    if (!taken) throw badRequest('This connect link is unknown, expired or already used: start again from the tool call.', 'state');
    const error = query.get('error');
    if (error)
      throw new GatewayError('insufficient_permissions', `The tool server's authorization server refused the connection (${/^[a-z_]{1,64}$/.test(error) ? error : 'error'}).`);
    const code = query.get('code');
    if (!code) throw badRequest('code is required.', 'code');
    const opened = this.box().open(taken.data);
    if (!opened) throw badRequest('This connect link cannot be read (secrets.key changed): start again from the tool call.', 'state');
    const { verifier, redirectUri } = JSON.parse(opened) as { verifier: string; redirectUri: string };
    const auth = this.auth(taken.server);
    const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier });
    const answer = await askTokenEndpoint(auth, (await this.endpoints(taken.server)).tokenEndpoint, form);
    if (!answer.ok) {
      this.logger.warn({ mcpServer: taken.server, error: answer.code }, 'the token endpoint of a tool server refused a connection');
      throw new GatewayError(
        answer.refused ? 'insufficient_permissions' : 'provider_error',
        `The token endpoint of tool server ${taken.server} ${answer.refused ? 'refused the code' : 'failed'} (${answer.code}).`,
      );
    }
    await this.keep(taken.owner, taken.server, answer, undefined, now);
    this.forgetLinks(taken.owner, taken.server);
    this.logger.info({ mcpServer: taken.server, owner: taken.owner }, 'a user connected a tool server');
    return { server: taken.server };
  }

  private async keep(owner: string, server: string, answer: Extract<TokenAnswer, { ok: true }>, previousRefresh: string | undefined, now: number): Promise<Held> {
    const held: Held = { access: answer.accessToken, refresh: answer.refreshToken ?? previousRefresh };
    await this.store.save(
      { owner, server, tokens: this.box().seal(JSON.stringify(held)), scope: answer.scope ?? null, expiresAt: answer.expiresIn ? now + answer.expiresIn * 1000 : null },
      now,
    );
    return held;
  }

  /** The caller's access token for `server` (refreshed when about to expire); the not-connected error when none is held. */
  async accessToken(server: string, owner: string, base: string, label?: string): Promise<string> {
    const row = await this.store.get(owner, server);
    if (!row) throw await this.notConnected(server, owner, base, label);
    const held = this.open(row);
    if (!held) throw await this.notConnected(server, owner, base, label);
    if (row.expiresAt === null || row.expiresAt - EARLY_MS > Date.now()) return held.access;
    const key = `${owner}\n${server}`;
    let refreshing = this.refreshing.get(key);
    if (!refreshing) {
      refreshing = this.refresh(server, owner, base, held, row.tokens).finally(() => this.refreshing.delete(key));
      this.refreshing.set(key, refreshing);
    }
    return refreshing;
  }

  private open(row: ConnectionRow): Held | undefined {
    const opened = this.box().open(row.tokens);
    return opened ? (JSON.parse(opened) as Held) : undefined;
  }

  private async refresh(server: string, owner: string, base: string, held: Held, sealed: string): Promise<string> {
    if (!held.refresh) {
      await this.store.remove(owner, server);
      throw await this.notConnected(server, owner, base);
    }
    const answer = await askTokenEndpoint(
      this.auth(server),
      (await this.endpoints(server)).tokenEndpoint,
      new URLSearchParams({ grant_type: 'refresh_token', refresh_token: held.refresh }),
    );
    if (!answer.ok) {
      this.logger.warn({ mcpServer: server, error: answer.code }, 'the token endpoint of a tool server refused a refresh');
      if (!answer.refused) throw new RpcFailure(RPC.SERVER_UNAVAILABLE, `Tool server ${server}: the token endpoint failed (${answer.code}).`);
      // Another instance may have refreshed first (the refresh token rotated): its tokens are used.
      const now = await this.store.get(owner, server);
      const theirs = now && now.tokens !== sealed ? this.open(now) : undefined;
      if (theirs && (now!.expiresAt === null || now!.expiresAt > Date.now())) return theirs.access;
      // The grant is gone (revoked, expired): the user connects again.
      await this.store.remove(owner, server);
      throw await this.notConnected(server, owner, base);
    }
    return (await this.keep(owner, server, answer, held.refresh, Date.now())).access;
  }

  /** The tool server refused the caller's access token (401): the next call refreshes it (or asks to connect again). */
  async refused(server: string, owner: string): Promise<void> {
    this.auth(server);
    await this.store.expire(owner, server);
    this.logger.info({ mcpServer: server, owner }, "a tool server refused a user's access token; it is refreshed on the next call");
  }

  /** The connections of `owner` (or of everyone, with their owners, for the admin), without tokens. */
  async list(owner: string | undefined, limit = 100): Promise<ConnectionView[]> {
    const rows = await this.store.list(owner, limit);
    return rows.map((row) => {
      const view: ConnectionView = {
        object: 'mcp.connection',
        server: row.server,
        scope: row.scope,
        expires_at: row.expiresAt === null ? null : Math.floor(row.expiresAt / 1000),
        refreshable: Boolean(this.open(row)?.refresh),
        created_at: Math.floor(row.createdAt / 1000),
        updated_at: Math.floor(row.updatedAt / 1000),
      };
      if (!owner) view.owner = row.owner;
      return view;
    });
  }

  /** Forgets the caller's connection to `server`; false when there was none. */
  disconnect(owner: string, server: string): Promise<boolean> {
    this.auth(server);
    this.forgetLinks(owner, server);
    return this.store.remove(owner, server);
  }

  /** A used link is not given again (on this instance; another's is refused as used and replaced after LINK_REUSE_MS). */
  private forgetLinks(owner: string, server: string): void {
    const prefix = `${owner}\n${server}\n`;
    for (const key of this.links.keys()) if (key.startsWith(prefix)) this.links.delete(key);
  }
}

function singleState(query: URLSearchParams): string {
  const states = query.getAll('state');
  if (states.length > 1) throw badRequest('state is given more than once.', 'state');
  const state = states[0];
  if (!state) throw badRequest('state is required.', 'state');
  return state;
}
