import { createHash, randomUUID } from 'node:crypto';
import type { BusMessage, SessionBus } from './session-bus.js';

/** How long an unsubscribe waits for the instance holding the subscription to end it; without an answer that instance is gone, and so is the subscription. */
const RELEASE_MS = 3000;
/**
 * The session value (session bus) that names the instance holding one of its subscriptions: a
 * value of its own for each (server, URI), so that subscriptions made at once through several
 * instances do not overwrite each other's record.
 */
export function subscriptionValueName(server: string, uri: string): string {
  return `subscription-${createHash('sha256').update(server).update('\n').update(uri).digest('hex').slice(0, 32)}`;
}

/** What a copy of an /mcp session tells about its resource subscriptions (session-links.ts). */
export interface SubscriptionSharing {
  /** This copy subscribed: it holds the subscription now (a copy on another instance that held it lets go). */
  claim(server: string, uri: string): Promise<void>;
  /** This copy ended a subscription it held. */
  dropped(server: string, uri: string): Promise<void>;
  /** Ends the subscription where another instance's copy holds it; resolves once it has ended (or that instance is gone). */
  release(server: string, uri: string): Promise<void>;
  /** This copy ends (its instance stops, or it is dropped): the subscriptions it held (`held`) are held nowhere any more. */
  abandon(held: ReadonlyArray<{ server: string; uri: string }>): Promise<void>;
}

/**
 * Resource subscriptions of /mcp sessions on any instance. A subscription lives on the
 * instance whose copy of the session made it (on that copy's own connection to the tool
 * server); its updates reach the client's server stream wherever that is (the session bus
 * passes them on). Which instance holds each subscription is kept with the session (session
 * bus values, in Redis or PostgreSQL), so that an unsubscribe that comes to another instance
 * ends it where it lives, and answers once it has; a subscribe through another instance
 * moves the subscription there (one holder, no double updates).
 */
export class SubscriptionHolders {
  /** Questions to other instances waiting for an answer (true) or RELEASE_MS (false), by relay id. */
  private readonly waiting = new Map<string, (answered: boolean) => void>();

  constructor(private readonly bus: SessionBus) {}

  /** The sharing of one session (its id once it has one). */
  of(sid: () => string | undefined): SubscriptionSharing {
    const each = (f: (id: string, server: string, uri: string) => Promise<void>) => async (server: string, uri: string) => {
      const id = sid();
      if (id && this.bus.active) await f(id, server, uri);
    };
    return {
      claim: each((id, server, uri) => this.claim(id, server, uri)),
      dropped: each((id, server, uri) => this.dropped(id, server, uri)),
      release: each((id, server, uri) => this.release(id, server, uri)),
      abandon: async (held) => {
        const id = sid();
        if (id && this.bus.active) await this.abandon(id, held);
      },
    };
  }

  private holder(sid: string, server: string, uri: string): Promise<string | undefined> {
    return this.bus.loadValue(sid, subscriptionValueName(server, uri));
  }

  private async setHolder(sid: string, server: string, uri: string, holder: string | undefined): Promise<void> {
    await this.bus.saveValue(sid, subscriptionValueName(server, uri), holder);
  }

  private async claim(sid: string, server: string, uri: string): Promise<void> {
    const before = await this.holder(sid, server, uri);
    await this.setHolder(sid, server, uri, this.bus.address);
    // The copy that held it lets go (after this one subscribed: an update may come twice, none is lost).
    if (before && before !== this.bus.address) await this.letGo(sid, before, server, uri);
  }

  private async dropped(sid: string, server: string, uri: string): Promise<void> {
    if ((await this.holder(sid, server, uri)) === this.bus.address) await this.setHolder(sid, server, uri, undefined);
  }

  private async release(sid: string, server: string, uri: string): Promise<void> {
    const holder = await this.holder(sid, server, uri);
    if (!holder) return;
    await this.setHolder(sid, server, uri, undefined);
    if (holder !== this.bus.address) await this.letGo(sid, holder, server, uri);
  }

  /**
   * Forgets the subscriptions of the session this instance holds (`held`): a later subscribe or
   * unsubscribe through another instance then has no holder to wait for.
   */
  private async abandon(sid: string, held: ReadonlyArray<{ server: string; uri: string }>): Promise<void> {
    await Promise.all(held.map(({ server, uri }) => this.dropped(sid, server, uri)));
  }

  /** Asks the instance holding a subscription to end it; resolves once it has (or after RELEASE_MS: that instance is gone). */
  private async letGo(sid: string, holder: string, server: string, uri: string): Promise<void> {
    await this.ask({ kind: 'state', sid, to: holder, op: 'release', messages: [{ unsubscribe: { server, uri } }] });
  }

  /**
   * Whether another instance holds the session's server stream (GET) open: a copy that holds
   * subscriptions stays while its client listens, however long its own copy goes unused.
   */
  streamOpenElsewhere(sid: string): Promise<boolean> {
    return this.ask({ kind: 'state', sid, op: 'stream', messages: [] });
  }

  /** Sends a question (to one instance, or to all) and waits for the first answer: false after RELEASE_MS without one. */
  private ask(question: Omit<BusMessage, 'rid' | 'reply'>): Promise<boolean> {
    const rid = randomUUID();
    return new Promise<boolean>((resolve) => {
      const done = (answered: boolean) => {
        clearTimeout(timer);
        this.waiting.delete(rid);
        resolve(answered);
      };
      const timer = setTimeout(() => done(false), RELEASE_MS);
      timer.unref();
      this.waiting.set(rid, done);
      this.bus.publish({ ...question, rid, reply: this.bus.address });
    });
  }

  /** An answer to one of this instance's questions (a subscription ended, a server stream open). */
  answered(message: BusMessage): void {
    if (message.rid) this.waiting.get(message.rid)?.(true);
  }

  /** Answers another instance's question (the subscription ended here, or this instance has no copy of the session; the stream is open here). */
  answer(message: BusMessage): void {
    if (message.reply && message.rid) this.bus.publish({ kind: 'state', sid: message.sid, to: message.reply, op: 'answer', rid: message.rid, messages: [] });
  }
}
