import type { Redis } from 'ioredis';
import type { CounterSlot, RateCounter, SlotState } from './counter.js';

/**
 * For each slot (KEYS: request counter, token counter; ARGV: ttl ms): count the request,
 * start its expiry on the window's first hit, read the tokens used. One script call, so the
 * counts of all rules move together, atomically, whichever instance serves the request.
 */
const HIT = `
local out = {}
for i = 1, #KEYS, 2 do
  local n = redis.call('INCR', KEYS[i])
  if n == 1 then redis.call('PEXPIRE', KEYS[i], ARGV[(i + 1) / 2]) end
  local t = redis.call('GET', KEYS[i + 1])
  out[#out + 1] = n
  out[#out + 1] = tonumber(t or '0')
end
return out
`;

const ADD_TOKENS = `
for i = 1, #KEYS do
  local t = redis.call('INCRBY', KEYS[i], ARGV[1])
  if t == tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[i], ARGV[i + 1]) end
end
return 1
`;

type ScriptedRedis = Redis & {
  gatewayRateHit(numKeys: number, ...args: Array<string | number>): Promise<number[]>;
  gatewayRateTokens(numKeys: number, ...args: Array<string | number>): Promise<number>;
};

/** Counters shared by every instance on one Redis, under `<prefix>rl:`. */
export class RedisRateCounter implements RateCounter {
  private readonly redis: ScriptedRedis;

  constructor(
    redis: Redis,
    private readonly prefix: string,
  ) {
    if (!(redis as unknown as Partial<ScriptedRedis>).gatewayRateHit) {
      redis.defineCommand('gatewayRateHit', { lua: HIT });
      redis.defineCommand('gatewayRateTokens', { lua: ADD_TOKENS });
    }
    this.redis = redis as unknown as ScriptedRedis;
  }

  async hit(slots: CounterSlot[]): Promise<SlotState[]> {
    if (!slots.length) return [];
    const keys = slots.flatMap((s) => [`${this.prefix}rl:${s.key}`, `${this.prefix}rl:${s.key}:t`]);
    const ttls = slots.map((s) => Math.max(1, Math.ceil(s.ttlMs)));
    const out = await this.redis.gatewayRateHit(keys.length, ...keys, ...ttls);
    return slots.map((_, i) => ({ requests: Number(out[2 * i]), tokens: Number(out[2 * i + 1]) }));
  }

  async addTokens(slots: CounterSlot[], tokens: number): Promise<void> {
    if (!slots.length || tokens <= 0) return;
    const keys = slots.map((s) => `${this.prefix}rl:${s.key}:t`);
    await this.redis.gatewayRateTokens(keys.length, ...keys, Math.round(tokens), ...slots.map((s) => Math.max(1, Math.ceil(s.ttlMs))));
  }
}
