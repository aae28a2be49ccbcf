import { RPC, RpcFailure } from '../rpc-errors.js';
import { CALLER_CREDENTIAL } from './upstream-token.js';
import type { UpstreamServer } from './upstream-server.js';

/** How many users' own sessions one server keeps open at most (the least recently used is closed). */
const MAX_SESSIONS = 1000;
/** A user's session unused this long is closed. */
const IDLE_MS = 10 * 60_000;

interface Held {
  server: UpstreamServer;
  usedAt: number;
  starting?: Promise<void>;
}

/**
 * Each connected user's own session with a tool server of `auth.upstream: per_user_oauth` that
 * refuses the gateway's own session (it has no user's token: most OAuth-protected servers refuse
 * even `initialize` without one). The combined /mcp then lists and calls that server for a caller
 * on a session opened with the caller's own token, never another user's: one per user, closed
 * when idle. A caller who has not connected gets the not-connected error (with its link).
 */
export class PerUserSessions {
  private readonly byOwner = new Map<string, Held>();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly name: string,
    /** A server of the same config whose requests carry `owner`'s token. */
    private readonly open: (owner: string, base: string) => UpstreamServer,
    /** The caller's token: fails with the not-connected error when they hold none. */
    private readonly token: () => Promise<string | undefined>,
  ) {}

  /** The caller's own session, opened on first use. */
  async forCaller(): Promise<UpstreamServer> {
    const caller = CALLER_CREDENTIAL.getStore();
    if (!caller?.owner) throw new RpcFailure(RPC.SERVER_UNAVAILABLE, `Tool server ${this.name} is unavailable.`);
    // Not connected: the error with the link to connect (nothing is opened for them).
    await this.token();
    const owner = caller.owner;
    let held = this.byOwner.get(owner);
    if (held && !held.starting && held.server.status !== 'ready') {
      this.byOwner.delete(owner);
      void held.server.close().catch(() => undefined);
      held = undefined;
    }
    if (!held) {
      this.evict();
      const server = this.open(owner, caller.base ?? '');
      held = { server, usedAt: Date.now() };
      const entry = held;
      held.starting = server.start().finally(() => (entry.starting = undefined));
      this.byOwner.set(owner, held);
      this.startSweeper();
    }
    held.usedAt = Date.now();
    if (held.starting) await held.starting;
    if (held.server.status !== 'ready') {
      if (this.byOwner.get(owner) === held) this.byOwner.delete(owner);
      void held.server.close().catch(() => undefined);
      throw new RpcFailure(RPC.SERVER_UNAVAILABLE, `Tool server ${this.name} is unavailable.`);
    }
    return held.server;
  }

  /** Users with a session open now. */
  get size(): number {
    return this.byOwner.size;
  }

  private evict(): void {
    if (this.byOwner.size < MAX_SESSIONS) return;
    let oldest: [string, Held] | undefined;
    for (const entry of this.byOwner) if (!entry[1].starting && (!oldest || entry[1].usedAt < oldest[1].usedAt)) oldest = entry;
    if (!oldest) return;
    this.byOwner.delete(oldest[0]);
    void oldest[1].server.close().catch(() => undefined);
  }

  private startSweeper(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => {
      const now = Date.now();
      for (const [owner, held] of this.byOwner) {
        if (held.starting || now - held.usedAt < IDLE_MS) continue;
        this.byOwner.delete(owner);
        void held.server.close().catch(() => undefined);
      }
      if (!this.byOwner.size) {
        clearInterval(this.sweeper);
        this.sweeper = undefined;
      }
    }, IDLE_MS / 4);
    this.sweeper.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    const all = [...this.byOwner.values()];
    this.byOwner.clear();
    await Promise.all(all.map((h) => h.server.close().catch(() => undefined)));
  }
}
