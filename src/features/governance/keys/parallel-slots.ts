import type { Redis } from 'ioredis';

/** Requests of one key running at once, counted where every instance sees them. */
export interface ParallelSlots {
  /** Takes a slot when fewer than `max` are held; false when all are. */
  acquire(keyId: string, max: number): Promise<boolean>;
  release(keyId: string): Promise<void>;
  /** Slots a key holds now (for tests and the console). */
  held(keyId: string): Promise<number>;
}

/** KEYS[1]: the key's counter; ARGV: max, ttl ms. The counter's expiry frees the slots of an instance that died holding them. */
const ACQUIRE = `
local n = redis.call('INCR', KEYS[1])
if n > tonumber(ARGV[1]) then
  redis.call('DECR', KEYS[1])
  return 0
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;

const RELEASE = `
local n = redis.call('DECR', KEYS[1])
if n <= 0 then redis.call('DEL', KEYS[1]) end
return 1
`;

type ScriptedRedis = Redis & {
  gatewayParallelAcquire(numKeys: number, ...args: Array<string | number>): Promise<number>;
  gatewayParallelRelease(numKeys: number, ...args: Array<string | number>): Promise<number>;
};

/** Slots shared by every instance on one Redis (`<prefix>par:<key id>`); each acquire renews the counter's expiry (10 min). */
export class RedisParallelSlots implements ParallelSlots {
  private readonly redis: ScriptedRedis;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly ttlMs = 600_000,
  ) {
    this.redis = redis as ScriptedRedis;
    if (!this.redis.gatewayParallelAcquire) {
      redis.defineCommand('gatewayParallelAcquire', { lua: ACQUIRE });
      redis.defineCommand('gatewayParallelRelease', { lua: RELEASE });
    }
  }

  async acquire(keyId: string, max: number): Promise<boolean> {
    return (await this.redis.gatewayParallelAcquire(1, `${this.prefix}par:${keyId}`, max, this.ttlMs)) === 1;
  }

  async release(keyId: string): Promise<void> {
    await this.redis.gatewayParallelRelease(1, `${this.prefix}par:${keyId}`);
  }

  async held(keyId: string): Promise<number> {
    return Number((await this.redis.get(`${this.prefix}par:${keyId}`)) ?? 0);
  }
}
