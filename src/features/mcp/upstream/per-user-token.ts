import type { UserConnections } from '../connections/user-connections.js';
import { RPC, RpcFailure } from '../rpc-errors.js';
import { CALLER_CREDENTIAL } from './upstream-token.js';

/**
 * The token of `auth.upstream: per_user_oauth`: for a caller, the access token of their own
 * connection to the server (the not-connected error, with the link to connect, when they hold
 * none); the gateway's own requests (its first list, no caller) go without one.
 */
export class PerUserToken {
  /** The client secret is masked in what the server answers. */
  readonly secrets: string[];

  constructor(
    private readonly server: string,
    clientSecret: string | undefined,
    private readonly connections: () => UserConnections | undefined,
    /** One user's session (see PerUserSessions): always that user's token, whoever is being served. */
    private readonly fixed?: { owner: string; base: string; label?: string },
  ) {
    this.secrets = clientSecret ? [clientSecret] : [];
  }

  async authorization(): Promise<string | undefined> {
    const caller = this.fixed ?? CALLER_CREDENTIAL.getStore();
    if (!caller?.owner) return undefined;
    // With auth disabled every caller is the same anonymous one: no one's account may be shared that way.
    if (caller.owner.startsWith('anonymous:'))
      throw new RpcFailure(
        RPC.FORBIDDEN,
        `Forbidden: tool server ${this.server} needs each caller's own connection (auth.upstream per_user_oauth), and this gateway does not authenticate callers.`,
      );
    const connections = this.connections();
    if (!connections) throw new RpcFailure(RPC.SERVER_UNAVAILABLE, `Tool server ${this.server}: per-user connections are not available (no store).`);
    return `Bearer ${await connections.accessToken(this.server, caller.owner, caller.base ?? '', caller.label)}`;
  }

  /** The server refused the caller's token (401): it is refreshed before the next call. */
  async refused(): Promise<void> {
    const owner = this.fixed?.owner ?? CALLER_CREDENTIAL.getStore()?.owner;
    if (owner) await this.connections()?.refused(this.server, owner);
  }
}
