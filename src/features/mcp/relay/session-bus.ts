import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import type { GatewayServices } from '../../../kernel/engine/services.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import { getStore } from '../../../kernel/store/store-capability.js';
import type { SqlStore } from '../../../kernel/store/sql-store.js';
import { redisKeyPrefix, sharedRedis } from '../../../kernel/store/redis-client.js';
import { SESSION_MAX_AGE_S } from './session-ends.js';

/** What one instance tells the others about a session (any instance may hold its other half). */
export interface BusMessage {
  /** The session id. */
  sid: string;
  /**
   * `client`: messages of the client (answers to the gateway's requests, cancellations) for the
   * instance that sent the request or runs the call; `stream`: a notification for the instance
   * that holds the session's server stream (GET); `process`: a request to or an answer from the
   * instance running the process of a /mcp/<server> session (see process-relay.ts), for the
   * instance named by `to` only; `round`: the retry of a 2026-07-28 request whose round another
   * instance runs, and what that instance answers (see round-relay.ts), for `to` only.
   */
  kind: 'client' | 'stream' | 'state' | 'process' | 'round';
  messages: Array<Record<string, unknown>>;
  /** `process`: the instance the message is for (its bus address); delivered on a channel of its own, to it only. */
  to?: string;
  /**
   * What is asked or answered. `process`: post, get, unget, delete, cancel, ping; ack, out, close,
   * pong. `round`: resume, cancel; ack, alive, out, done, error. `state`: release (a subscription),
   * stream (is the server stream open there?); answer.
   */
  op?: string;
  /** The client's HTTP request (on the instance it came to), or the question, the message belongs to. */
  rid?: string;
  /** The instance to answer (its bus address). */
  reply?: string;
  /** `process`: the caller, authenticated by the instance the request came to. */
  identity?: Record<string, unknown>;
  /** `process` ack: the HTTP status for the client. */
  status?: number;
}

/** Where the messages go: Redis pub/sub, or PostgreSQL LISTEN/NOTIFY. */
interface Backend {
  /** To every instance, or (`to`) to the one with that address only. */
  publish(text: string, to?: string): Promise<void>;
  saveLevel(hash: string, level: string): Promise<void>;
  loadLevel(hash: string): Promise<string | undefined>;
  /** A value of a session kept for every instance (`key` names it and the session), or removed (undefined). */
  saveValue(key: string, value: string | undefined): Promise<void>;
  loadValue(key: string): Promise<string | undefined>;
  close(): void;
}

/** NOTIFY payloads stay under PostgreSQL's 8000-byte limit; longer messages go through a table. */
const NOTIFY_MAX = 7000;
/** Messages kept in the table for receivers to read (they read at once). */
const TABLE_KEEP_S = 60;

/**
 * Messages of MCP sessions between the instances of a gateway: a client's answer to a request
 * the tool server made through another instance, a cancellation of a call another instance
 * runs, a notification for a server stream another instance holds, a change of the session's
 * log level. Through Redis pub/sub with a `redis.url`, else PostgreSQL LISTEN/NOTIFY with
 * `storage.type: postgres`; inactive otherwise (those messages then reach only the instance
 * they came to).
 */
export class SessionBus {
  private readonly self = randomBytes(8).toString('hex');
  private backend?: Backend;
  onMessage?: (message: BusMessage) => void;
  /** Messages of kind `process` addressed to this instance. */
  onProcess?: (message: BusMessage) => void;
  /** Messages of kind `round` addressed to this instance. */
  onRound?: (message: BusMessage) => void;

  constructor(private readonly logger: Logger) {}

  get active(): boolean {
    return this.backend !== undefined;
  }

  /** This instance's address on the bus (messages with this `to` come here). */
  get address(): string {
    return this.self;
  }

  async connect(services: GatewayServices): Promise<void> {
    const redis = services.config.redis?.url ? sharedRedis(services) : undefined;
    if (redis) this.backend = await this.redisBackend(redis, `${redisKeyPrefix(services)}mcp-sessions`);
    else {
      const storage = services.config.storage;
      const store = getStore(services);
      if (storage?.type === 'postgres' && storage.url && store.dialect === 'postgres') this.backend = await this.postgresBackend(store, storage.url, storage.schema);
    }
  }

  private receive(text: string): void {
    try {
      const { from, ...message } = JSON.parse(text) as BusMessage & { from: string };
      if (from === this.self || typeof message.sid !== 'string' || !Array.isArray(message.messages)) return;
      if (message.kind === 'process') {
        if (message.to === this.self) this.onProcess?.(message);
      } else if (message.kind === 'round') {
        if (message.to === this.self) this.onRound?.(message);
      } else this.onMessage?.(message);
    } catch {
      // Not one of ours.
    }
  }

  private async redisBackend(redis: Redis, channel: string): Promise<Backend> {
    // A connection of its own (a subscribed one takes no other command), which queues while it reconnects.
    const subscriber = redis.duplicate({ enableOfflineQueue: true, lazyConnect: true });
    subscriber.on('error', (err: Error) => this.logger.debug({ err: err.message }, 'mcp session bus error'));
    // Messages for every instance, and those for this one only.
    const mine = `${channel}:${this.self}`;
    subscriber.on('message', (from: string, text: string) => {
      if (from === channel || from === mine) this.receive(text);
    });
    await subscriber.connect();
    await subscriber.subscribe(channel, mine);
    const levelKey = (hash: string) => `${channel}:level:${hash}`;
    return {
      publish: async (text, to) => void (await redis.publish(to ? `${channel}:${to}` : channel, text)),
      saveLevel: async (hash, level) => void (await redis.set(levelKey(hash), level, 'EX', SESSION_MAX_AGE_S)),
      loadLevel: async (hash) => (await redis.get(levelKey(hash))) ?? undefined,
      saveValue: async (key, value) => void (value === undefined ? await redis.del(`${channel}:${key}`) : await redis.set(`${channel}:${key}`, value, 'EX', SESSION_MAX_AGE_S)),
      loadValue: async (key) => (await redis.get(`${channel}:${key}`)) ?? undefined,
      close: () => subscriber.disconnect(),
    };
  }

  private async postgresBackend(store: SqlStore, url: string, schema: string | undefined): Promise<Backend> {
    await store.migrate([
      {
        id: 'mcp-003-session-bus',
        statements: [
          'CREATE TABLE IF NOT EXISTS gateway_mcp_bus (id TEXT PRIMARY KEY, body TEXT NOT NULL, at BIGINT NOT NULL)',
          'CREATE TABLE IF NOT EXISTS gateway_mcp_levels (id_hash TEXT PRIMARY KEY, level TEXT NOT NULL, until BIGINT NOT NULL)',
        ],
      },
      { id: 'mcp-004-session-values', statements: ['CREATE TABLE IF NOT EXISTS gateway_mcp_values (id TEXT PRIMARY KEY, value TEXT NOT NULL, until BIGINT NOT NULL)'] },
    ]);
    // One channel per deployment (database and schema); a connection of its own listens on it.
    const channel = `gw_mcp_${createHash('sha256')
      .update(`${schema ?? ''}`)
      .digest('hex')
      .slice(0, 16)}`;
    // Messages for every instance, and (a channel of its own) those for this one only.
    const only = (address: string) => `${channel}_${address}`;
    const mine = only(this.self);
    // Messages are handed on in the order they came (one read from the table holds the later ones).
    let received: Promise<void> = Promise.resolve();
    const onNotification = (n: { channel: string; payload?: string }) => {
      const payload = n.payload;
      if ((n.channel !== channel && n.channel !== mine) || !payload) return;
      received = received.then(async () => {
        if (!payload.startsWith('#')) return this.receive(payload);
        const rows = await store.query<{ body: string }>('SELECT body FROM gateway_mcp_bus WHERE id = ?', [payload.slice(1)]).catch(() => []);
        if (rows[0]) this.receive(rows[0].body);
      });
    };
    let closed = false;
    // Loaded with the PostgreSQL store only (a config on SQLite or Redis never loads the client).
    const { Client } = (await import('pg')).default;
    let listener: pg.Client;
    // The listening connection is opened again when it breaks (a second later, until the bus closes).
    const listen = async (): Promise<void> => {
      const client = new Client({ connectionString: url });
      listener = client;
      let retried = false;
      const again = () => {
        if (closed || retried) return;
        retried = true;
        setTimeout(() => void listen().catch(again), 1000).unref();
      };
      client.on('error', (err: Error) => {
        this.logger.debug({ err: err.message }, 'mcp session bus error');
        again();
      });
      client.on('end', again);
      client.on('notification', onNotification);
      await client.connect();
      await client.query(`LISTEN ${channel}`);
      await client.query(`LISTEN ${mine}`);
    };
    await listen().catch((err: unknown) => {
      closed = true;
      throw err;
    });
    // Sent one after another: the pool's connections would otherwise reorder them (a progress notification after its result).
    let sent: Promise<void> = Promise.resolve();
    const send = async (text: string, to: string | undefined): Promise<void> => {
      const target = to ? only(to) : channel;
      if (Buffer.byteLength(text) <= NOTIFY_MAX) {
        await store.query('SELECT pg_notify(?, ?)', [target, text]);
        return;
      }
      const id = randomBytes(12).toString('hex');
      const now = Math.floor(Date.now() / 1000);
      await store.execute('DELETE FROM gateway_mcp_bus WHERE at < ?', [now - TABLE_KEEP_S]);
      await store.execute('INSERT INTO gateway_mcp_bus (id, body, at) VALUES (?, ?, ?)', [id, text, now]);
      await store.query('SELECT pg_notify(?, ?)', [target, `#${id}`]);
    };
    return {
      publish: (text, to) => {
        const done = sent.then(() => send(text, to));
        sent = done.catch(() => undefined);
        return done;
      },
      saveLevel: async (hash, level) => {
        const until = Math.floor(Date.now() / 1000) + SESSION_MAX_AGE_S;
        await store.execute(
          'INSERT INTO gateway_mcp_levels (id_hash, level, until) VALUES (?, ?, ?) ON CONFLICT (id_hash) DO UPDATE SET level = excluded.level, until = excluded.until',
          [hash, level, until],
        );
      },
      loadLevel: async (hash) =>
        (await store.query<{ level: string }>('SELECT level FROM gateway_mcp_levels WHERE id_hash = ? AND until > ?', [hash, Math.floor(Date.now() / 1000)]))[0]?.level,
      saveValue: async (key, value) => {
        if (value === undefined) return void (await store.execute('DELETE FROM gateway_mcp_values WHERE id = ?', [key]));
        const until = Math.floor(Date.now() / 1000) + SESSION_MAX_AGE_S;
        await store.execute('INSERT INTO gateway_mcp_values (id, value, until) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET value = excluded.value, until = excluded.until', [
          key,
          value,
          until,
        ]);
      },
      loadValue: async (key) =>
        (await store.query<{ value: string }>('SELECT value FROM gateway_mcp_values WHERE id = ? AND until > ?', [key, Math.floor(Date.now() / 1000)]))[0]?.value,
      close: () => {
        closed = true;
        void listener.end().catch(() => undefined);
      },
    };
  }

  /** The session's log level, kept for copies made later (a week, as long as an id is good). */
  async saveLevel(sid: string, level: string): Promise<void> {
    await this.backend?.saveLevel(digest(sid), level).catch((err: Error) => {
      this.logger.warn({ err: err.message }, 'an MCP session log level could not be kept for the other instances');
    });
  }

  async loadLevel(sid: string): Promise<string | undefined> {
    return this.backend?.loadLevel(digest(sid)).catch(() => undefined);
  }

  /** A value of the session kept for every instance (a week, as long as an id is good); undefined removes it. */
  async saveValue(sid: string, name: string, value: string | undefined): Promise<void> {
    await this.backend?.saveValue(`${name}:${digest(sid)}`, value).catch(() => undefined);
  }

  async loadValue(sid: string, name: string): Promise<string | undefined> {
    return this.backend?.loadValue(`${name}:${digest(sid)}`).catch(() => undefined);
  }

  publish(message: BusMessage): void {
    this.backend?.publish(JSON.stringify({ ...message, from: this.self }), message.to).catch((err: Error) => {
      this.logger.warn({ err: err.message }, 'an MCP session message could not be passed to the other instances');
    });
  }

  close(): void {
    this.backend?.close();
    this.backend = undefined;
  }
}

const digest = (sid: string) => createHash('sha256').update(sid).digest('base64url');
