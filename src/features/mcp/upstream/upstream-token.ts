import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { McpServerAuth } from '../../../generated/gateway.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import { RPC, RpcFailure } from '../rpc-errors.js';
import { askTokenEndpoint } from '../connections/token-endpoint.js';

/**
 * The caller of the request being served: the credential it presented (its bearer token), for
 * `auth.upstream: token_exchange`; its gateway identity (`kind:id`) and the gateway's public
 * address, for `per_user_oauth`. Set around each request to /mcp; absent for the gateway's own
 * requests (its first list, its own lists of a server).
 */
export const CALLER_CREDENTIAL = new AsyncLocalStorage<{ token?: string; owner?: string; base?: string; label?: string }>();

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
/** A token is used until this long before it expires (never a token about to lapse on its way). */
const EARLY_MS = 30_000;
/** Without expires_in, a token is kept this long. */
const DEFAULT_LIFETIME_MS = 5 * 60_000;
const MAX_CACHED = 10_000;

interface Held {
  token: string;
  /** Used until then (shortly before it expires). */
  useUntil: number;
}

/**
 * The access tokens the gateway sends a remote tool server (`mcpServers.<name>.auth`):
 * `client_credentials` (the gateway's own client, one token for everyone) or `token_exchange`
 * (RFC 8693: for each caller, the caller's token as subject_token, the server's audience and
 * scopes; the gateway's own requests use client credentials). Tokens are cached (by a hash of
 * the subject, never the subject itself) until shortly before they expire; concurrent requests
 * for the same token share one request to the token endpoint.
 */
export class UpstreamTokens {
  private readonly cache = new Map<string, Held>();
  private readonly pending = new Map<string, Promise<Held>>();
  /** What the server's answers and errors are masked of: the client secret, the gateway's own current tokens (the server's other secrets are added by it). */
  readonly secrets: string[];
  private readonly own: string[] = [];

  constructor(
    private readonly server: string,
    private readonly auth: McpServerAuth,
    private readonly logger: Logger,
  ) {
    this.secrets = auth.clientSecret ? [auth.clientSecret] : [];
  }

  /** The gateway's own token is masked in what the server answers (every caller would see it otherwise); the last two are kept. */
  private ownToken(token: string): void {
    if (this.own.includes(token)) return;
    this.own.push(token);
    this.secrets.push(token);
    while (this.own.length > 2) {
      const old = this.own.shift()!;
      const at = this.secrets.indexOf(old);
      if (at >= 0) this.secrets.splice(at, 1);
    }
  }

  /** The Authorization header for a request made now (in the caller's context, or the gateway's own). */
  async authorization(): Promise<string> {
    const caller = CALLER_CREDENTIAL.getStore();
    if (this.auth.upstream === 'token_exchange' && caller) {
      if (!caller.token) throw new RpcFailure(RPC.FORBIDDEN, `Forbidden: tool server ${this.server} needs the caller's bearer token to exchange (auth.upstream token_exchange).`);
      return `Bearer ${(await this.token(caller.token)).token}`;
    }
    return `Bearer ${(await this.token(undefined)).token}`;
  }

  private async token(subject: string | undefined): Promise<Held> {
    const key = subject === undefined ? '' : createHash('sha256').update(subject).digest('base64url');
    const held = this.cache.get(key);
    if (held && held.useUntil > Date.now()) return held;
    let asked = this.pending.get(key);
    if (!asked) {
      asked = this.ask(subject).finally(() => this.pending.delete(key));
      this.pending.set(key, asked);
    }
    const got = await asked;
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, got);
    if (subject === undefined) this.ownToken(got.token);
    return got;
  }

  private async ask(subject: string | undefined): Promise<Held> {
    const auth = this.auth;
    const form = new URLSearchParams();
    if (subject === undefined) {
      form.set('grant_type', 'client_credentials');
    } else {
      form.set('grant_type', TOKEN_EXCHANGE);
      form.set('subject_token', subject);
      form.set('subject_token_type', auth.subjectTokenType ?? ACCESS_TOKEN);
      form.set('requested_token_type', ACCESS_TOKEN);
    }
    if (auth.audience) form.set('audience', auth.audience);
    if (auth.resource) form.set('resource', auth.resource);
    if (auth.scopes?.length) form.set('scope', auth.scopes.join(' '));
    const grant = subject === undefined ? 'client credentials' : 'token exchange';
    const answer = await askTokenEndpoint(auth, auth.tokenEndpoint!, form);
    if (!answer.ok && answer.code === 'no_answer') {
      this.logger.warn({ mcpServer: this.server, grant }, 'the token endpoint of a tool server did not answer');
      throw new RpcFailure(RPC.SERVER_UNAVAILABLE, `Tool server ${this.server}: the token endpoint did not answer (${grant}).`);
    }
    if (!answer.ok) {
      // The endpoint's error code is passed on (a fixed vocabulary, RFC 6749 5.2); its description is never.
      this.logger.warn({ mcpServer: this.server, grant, error: answer.code }, 'the token endpoint of a tool server refused');
      throw new RpcFailure(
        answer.refused ? RPC.FORBIDDEN : RPC.SERVER_UNAVAILABLE,
        answer.refused
          ? `Forbidden: the token endpoint of tool server ${this.server} refused the ${grant} (${answer.code}).`
          : `Tool server ${this.server}: the token endpoint failed (${answer.code}).`,
      );
    }
    const token = answer.accessToken;
    const lifetime = answer.expiresIn ? answer.expiresIn * 1000 : DEFAULT_LIFETIME_MS;
    return { token, useUntil: Date.now() + lifetime - Math.min(EARLY_MS, lifetime / 2) };
  }
}
