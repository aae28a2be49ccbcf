import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { GatewayServices } from '../../../kernel/engine/services.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import { redisKeyPrefix, sharedRedis } from '../../models/routing/resilience-services.js';
import { SESSION_MAX_AGE_S } from './session-ends.js';

/** What one instance tells the others about a session (any instance may hold its other half). */
export interface BusMessage {
  /** The session id. */
  sid: string;
  /**
   * `client`: messages of the client (answers to the gateway's requests, cancellations) for the
   * instance that sent the request or runs the call; `stream`: a notification for the instance
   * that holds the session's server stream (GET).
   */
  kind: 'client' | 'stream' | 'state';
  messages: Array<Record<string, unknown>>;
}

/**
 * Messages of MCP sessions between the instances of a gateway, through Redis pub/sub (with a
 * `redis.url`): a client's answer to a request the tool server made through another instance,
 * a cancellation of a call another instance runs, a notification for a server stream another
 * instance holds. Without Redis it stays inactive (those messages then reach only the instance
 * they came to).
 */
export class SessionBus {
  private readonly self = randomBytes(8).toString('hex');
  private publisher?: Redis;
  private subscriber?: Redis;
  private channel = '';
  onMessage?: (message: BusMessage) => void;

  constructor(private readonly logger: Logger) {}

  get active(): boolean {
    return this.publisher !== undefined;
  }

  async connect(services: GatewayServices): Promise<void> {
    const redis = services.config.redis?.url ? sharedRedis(services) : undefined;
    if (!redis) return;
    this.channel = `${redisKeyPrefix(services)}mcp-sessions`;
    // A connection of its own (a subscribed one takes no other command), which queues while it reconnects.
    const subscriber = redis.duplicate({ enableOfflineQueue: true, lazyConnect: true });
    subscriber.on('error', (err: Error) => this.logger.debug({ err: err.message }, 'mcp session bus error'));
    subscriber.on('message', (channel: string, text: string) => {
      if (channel !== this.channel) return;
      try {
        const { from, ...message } = JSON.parse(text) as BusMessage & { from: string };
        if (from !== this.self && typeof message.sid === 'string' && Array.isArray(message.messages)) this.onMessage?.(message);
      } catch {
        // Not one of ours.
      }
    });
    await subscriber.connect();
    await subscriber.subscribe(this.channel);
    this.subscriber = subscriber;
    this.publisher = redis;
  }

  /** The session's log level, kept for copies made later (a week, as long as an id is good). */
  saveLevel(sid: string, level: string): void {
    this.publisher?.set(this.levelKey(sid), level, 'EX', SESSION_MAX_AGE_S).catch(() => undefined);
  }

  async loadLevel(sid: string): Promise<string | undefined> {
    if (!this.publisher) return undefined;
    return (await this.publisher.get(this.levelKey(sid)).catch(() => null)) ?? undefined;
  }

  private levelKey(sid: string): string {
    return `${this.channel}:level:${createHash('sha256').update(sid).digest('base64url')}`;
  }

  publish(message: BusMessage): void {
    if (!this.publisher) return;
    this.publisher.publish(this.channel, JSON.stringify({ ...message, from: this.self })).catch((err: Error) => {
      this.logger.warn({ err: err.message }, 'an MCP session message could not be passed to the other instances');
    });
  }

  close(): void {
    this.subscriber?.disconnect();
    this.subscriber = undefined;
    this.publisher = undefined;
  }
}
