import { createHash } from 'node:crypto';
import type { GatewayServices } from '../../../kernel/engine/services.js';
import { getStore } from '../../../kernel/store/store-capability.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import { redisKeyPrefix, sharedRedis } from '../../../kernel/store/redis-client.js';

/** How long a session id stays good (and an ended one is remembered as ended). */
export const SESSION_MAX_AGE_S = 7 * 24 * 3600;
const LOCAL_MAX = 50_000;

/** Where ended sessions are remembered for every instance. */
interface SharedEnds {
  mark(hash: string): Promise<void>;
  has(hash: string): Promise<boolean>;
}

const digest = (id: string) => createHash('sha256').update(id).digest('base64url');

/**
 * Sessions ended with DELETE: any instance can serve a session from its sealed id, so an ended
 * one is remembered (by a hash of its id) where every process looks: Redis with a `redis.url`,
 * otherwise the store (PostgreSQL for instances, the SQLite file the workers of a cluster share),
 * and this process's memory always.
 */
export class SessionEnds {
  private readonly local = new Map<string, number>();
  private shared?: SharedEnds;

  constructor(private readonly logger: Logger) {}

  /** Whether other instances share the record (else only this instance's ends count). */
  get isShared(): boolean {
    return this.shared !== undefined;
  }

  /** At start: the shared place, when the config has one. */
  async connect(services: GatewayServices): Promise<void> {
    const redis = services.config.redis?.url ? sharedRedis(services) : undefined;
    if (redis) {
      const prefix = `${redisKeyPrefix(services)}mcp-ended:`;
      this.shared = {
        mark: async (hash) => void (await redis.set(prefix + hash, '1', 'EX', SESSION_MAX_AGE_S)),
        has: async (hash) => (await redis.exists(prefix + hash)) > 0,
      };
      return;
    }
    const store = getStore(services);
    await store.migrate([{ id: 'mcp-002-ended-sessions', statements: ['CREATE TABLE IF NOT EXISTS gateway_mcp_ended (id_hash TEXT PRIMARY KEY, until BIGINT NOT NULL)'] }]);
    this.shared = {
      mark: async (hash) => {
        const now = Math.floor(Date.now() / 1000);
        await store.execute('DELETE FROM gateway_mcp_ended WHERE until < ?', [now]);
        await store.execute('INSERT INTO gateway_mcp_ended (id_hash, until) VALUES (?, ?) ON CONFLICT (id_hash) DO NOTHING', [hash, now + SESSION_MAX_AGE_S]);
      },
      has: async (hash) => (await store.query('SELECT 1 AS one FROM gateway_mcp_ended WHERE id_hash = ?', [hash])).length > 0,
    };
  }

  async end(id: string): Promise<void> {
    const hash = digest(id);
    if (this.local.size >= LOCAL_MAX) this.local.delete(this.local.keys().next().value!);
    this.local.set(hash, Date.now() + SESSION_MAX_AGE_S * 1000);
    await this.shared?.mark(hash).catch((err: Error) => this.logger.warn({ err: err.message }, 'an ended MCP session could not be recorded for the other instances'));
  }

  /** Whether the session was ended (here or, when shared, on any instance); while the shared store fails, only this instance's ends count. */
  async ended(id: string): Promise<boolean> {
    const hash = digest(id);
    const until = this.local.get(hash);
    if (until !== undefined && until > Date.now()) return true;
    if (!this.shared) return false;
    try {
      return await this.shared.has(hash);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'ended MCP sessions could not be looked up; the session is served');
      return false;
    }
  }
}
