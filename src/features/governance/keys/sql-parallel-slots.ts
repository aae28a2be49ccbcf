import { randomUUID } from 'node:crypto';
import type { Migration, SqlStore } from '../../../kernel/store/sql-store.js';
import type { ParallelSlots } from './parallel-slots.js';

/** The slots table: how many slots each instance holds per key, until when (the instance's heartbeat). */
export const KEY_SLOT_MIGRATIONS: Migration[] = [
  {
    id: 'key-slots-001-create',
    statements: [
      `CREATE TABLE gateway_key_slots (
        key_id TEXT NOT NULL,
        instance_id TEXT NOT NULL,
        held BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        PRIMARY KEY (key_id, instance_id)
      )`,
    ],
  },
];

/**
 * maxParallel slots in the SQL store (PostgreSQL shared by instances without Redis; SQLite
 * shared by the workers of one instance): one row per (key, instance) holding that instance's
 * count. An acquire counts every live row of the key under the key's lock (PostgreSQL: a
 * transaction-scoped advisory lock; SQLite: the write lock of BEGIN IMMEDIATE) and adds one to
 * its own row; a release takes one off (rows at 0 are purged by the next acquire). Rows live `ttlMs` past the last heartbeat of their
 * instance (every ttl/3 while it holds slots): the slots of an instance that died free
 * themselves then, and are purged by the next acquire of the key.
 */
export class SqlParallelSlots implements ParallelSlots {
  private readonly instance = randomUUID();
  /** Slots this instance holds, by key (what its heartbeat keeps alive). */
  private readonly mine = new Map<string, number>();
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: SqlStore,
    private readonly ttlMs = 30_000,
    private readonly clock: () => number = Date.now,
  ) {}

  async acquire(keyId: string, max: number): Promise<boolean> {
    const now = this.clock();
    const taken = await this.store.transaction(async (tx) => {
      if (tx.dialect === 'postgres') await tx.query('SELECT pg_advisory_xact_lock(hashtext(?))', [`key-slots:${keyId}`]);
      await tx.execute('DELETE FROM gateway_key_slots WHERE key_id = ? AND ((expires_at <= ? AND instance_id <> ?) OR held <= 0)', [keyId, now, this.instance]);
      const [row] = await tx.query<{ n: number | string | null }>('SELECT SUM(held) AS n FROM gateway_key_slots WHERE key_id = ? AND (expires_at > ? OR instance_id = ?)', [
        keyId,
        now,
        this.instance,
      ]);
      if (Number(row?.n ?? 0) >= max) return false;
      await tx.execute(
        `INSERT INTO gateway_key_slots (key_id, instance_id, held, expires_at) VALUES (?, ?, 1, ?)
         ON CONFLICT (key_id, instance_id) DO UPDATE SET held = gateway_key_slots.held + 1, expires_at = excluded.expires_at`,
        [keyId, this.instance, now + this.ttlMs],
      );
      return true;
    });
    if (taken) {
      this.mine.set(keyId, (this.mine.get(keyId) ?? 0) + 1);
      this.startHeartbeat();
    }
    return taken;
  }

  async release(keyId: string): Promise<void> {
    const n = (this.mine.get(keyId) ?? 0) - 1;
    if (n > 0) this.mine.set(keyId, n);
    else this.mine.delete(keyId);
    // A decrement (never an absolute count): it commutes with this instance's acquires in flight.
    await this.store.execute('UPDATE gateway_key_slots SET held = held - 1 WHERE key_id = ? AND instance_id = ?', [keyId, this.instance]);
  }

  async held(keyId: string): Promise<number> {
    const [row] = await this.store.query<{ n: number | string | null }>('SELECT SUM(held) AS n FROM gateway_key_slots WHERE key_id = ? AND expires_at > ?', [keyId, this.clock()]);
    return Number(row?.n ?? 0);
  }

  private startHeartbeat(): void {
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => void this.beat(), Math.max(10, Math.floor(this.ttlMs / 3)));
    this.heartbeat.unref();
  }

  private async beat(): Promise<void> {
    if (!this.mine.size) {
      this.close();
      return;
    }
    await this.store.execute('UPDATE gateway_key_slots SET expires_at = ? WHERE instance_id = ?', [this.clock() + this.ttlMs, this.instance]).catch(() => undefined);
  }

  /** Stops the heartbeat (shutdown; the rows left expire by themselves). */
  close(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }
}
