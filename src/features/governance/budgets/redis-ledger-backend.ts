import type { Redis } from 'ioredis';
import type { Reservation } from '../governance-types.js';
import type { BudgetPlan } from './budget-plan.js';
import type { BackendReserve, BackendSettle, BackendSpent, LedgerBackend, SettledAlert } from './ledger-backend.js';

/*
 * Keys of one budget under `<prefix>budget:<id>`:
 *   :s:<series>  hash: "<index>m" / "<index>t" settled microdollars / tokens per window index
 *                (rolling: per bucket), "a<alert window>:<percent>" alerts sent
 *   :z           zset: live reservation ids by expiry (Unix ms)
 *   :r           hash: reservation id -> "<micros>:<tokens>", "_m" / "_t" their running totals
 * Expired reservations are purged a few at a time by every script that touches the budget.
 */
const COMMON = `
local function purge(z, r, now)
  local gone = redis.call('ZRANGEBYSCORE', z, '-inf', now, 'LIMIT', 0, 64)
  for _, rid in ipairs(gone) do
    local v = redis.call('HGET', r, rid)
    if v then
      local sep = string.find(v, ':', 1, true)
      redis.call('HINCRBY', r, '_m', 0 - tonumber(string.sub(v, 1, sep - 1)))
      redis.call('HINCRBY', r, '_t', 0 - tonumber(string.sub(v, sep + 1)))
      redis.call('HDEL', r, rid)
    end
    redis.call('ZREM', z, rid)
  end
end
-- Settled spend of indexes from..to, and the oldest index holding any.
local function spend(s, from, to)
  if from == to then
    local v = redis.call('HMGET', s, from .. 'm', from .. 't')
    return tonumber(v[1] or '0'), tonumber(v[2] or '0'), -1
  end
  local f = {}
  for k = from, to do
    f[#f + 1] = k .. 'm'
    f[#f + 1] = k .. 't'
  end
  local v = redis.call('HMGET', s, unpack(f))
  local m, t, oldest = 0, 0, -1
  for j = 1, #v, 2 do
    local a, b = tonumber(v[j] or '0'), tonumber(v[j + 1] or '0')
    if (a > 0 or b > 0) and oldest < 0 then oldest = from + (j - 1) / 2 end
    m = m + a
    t = t + b
  end
  return m, t, oldest
end
`;

/**
 * KEYS: per budget s, z, r. ARGV: clock ms, expiry ms, reservation id, micros, tokens, then per
 * budget: from, to, money limit (-1: none), token limit (-1: none), block (1/0).
 * Answers {1, used micros per budget...} or {0, index of the first refusing budget (1-based), oldest}.
 */
const RESERVE = `${COMMON}
local now = tonumber(ARGV[1])
local m, t = tonumber(ARGV[4]), tonumber(ARGV[5])
local n = #KEYS / 3
local out = {1}
for i = 1, n do
  local s, z, r = KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i]
  local b = 5 + (i - 1) * 5
  purge(z, r, now)
  local sm, st, oldest = spend(s, tonumber(ARGV[b + 1]), tonumber(ARGV[b + 2]))
  local live = redis.call('HMGET', r, '_m', '_t')
  local um, ut = sm + tonumber(live[1] or '0'), st + tonumber(live[2] or '0')
  local lm, lt = tonumber(ARGV[b + 3]), tonumber(ARGV[b + 4])
  if ARGV[b + 5] == '1' and ((lm >= 0 and um + m > lm) or (lt >= 0 and ut + t > lt)) then return {0, i, oldest} end
  out[#out + 1] = um
end
for i = 1, n do
  local z, r = KEYS[3 * i - 1], KEYS[3 * i]
  redis.call('ZADD', z, ARGV[2], ARGV[3])
  redis.call('HSET', r, ARGV[3], ARGV[4] .. ':' .. ARGV[5])
  redis.call('HINCRBY', r, '_m', ARGV[4])
  redis.call('HINCRBY', r, '_t', ARGV[5])
end
return out
`;

/**
 * KEYS: per budget s, z, r, then the reservation's settled marker (kept a day: a settle tried
 * again after a timeout is not counted twice). ARGV: clock ms, reservation id, micros, tokens, then per budget: from,
 * to, keep (indexes kept before \`to\`: older ones are deleted when \`to\` starts), measure ("m"
 * money, "t" tokens), alert window, alerts ("percent:level,..."). Answers {used micros,
 * spent micros, spent tokens} per budget, then "index:percent" per alert to send.
 */
const SETTLE = `${COMMON}
local now = tonumber(ARGV[1])
local id = ARGV[2]
local n = (#KEYS - 1) / 3
local m, t = tonumber(ARGV[3]), tonumber(ARGV[4])
if not redis.call('SET', KEYS[#KEYS], '1', 'PX', 86400000, 'NX') then m, t = 0, 0 end
local out, alerts = {}, {}
for i = 1, n do
  local s, z, r = KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i]
  local b = 4 + (i - 1) * 6
  local from, to, keep = tonumber(ARGV[b + 1]), tonumber(ARGV[b + 2]), tonumber(ARGV[b + 3])
  purge(z, r, now)
  local v = redis.call('HGET', r, id)
  if v then
    local sep = string.find(v, ':', 1, true)
    redis.call('HINCRBY', r, '_m', 0 - tonumber(string.sub(v, 1, sep - 1)))
    redis.call('HINCRBY', r, '_t', 0 - tonumber(string.sub(v, sep + 1)))
    redis.call('HDEL', r, id)
    redis.call('ZREM', z, id)
  end
  if m > 0 or t > 0 then
    if redis.call('HEXISTS', s, to .. 't') == 0 then
      -- A new window or bucket: the ones that left the window long ago go.
      for k = to - keep - 24, to - keep - 1 do redis.call('HDEL', s, k .. 'm', k .. 't') end
    end
    redis.call('HINCRBY', s, to .. 'm', ARGV[3])
    redis.call('HINCRBY', s, to .. 't', ARGV[4])
  end
  local sm, st = spend(s, from, to)
  local live = redis.call('HMGET', r, '_m', '_t')
  out[#out + 1] = sm + tonumber(live[1] or '0')
  out[#out + 1] = sm
  out[#out + 1] = st
  local after = sm
  local added = m
  if ARGV[b + 4] == 't' then after, added = st, t end
  for pair in string.gmatch(ARGV[b + 6], '[^,]+') do
    local sep = string.find(pair, ':', 1, true)
    local level = tonumber(string.sub(pair, sep + 1))
    if after - added < level and after >= level then
      local pct = string.sub(pair, 1, sep - 1)
      if redis.call('HSETNX', s, 'a' .. ARGV[b + 5] .. ':' .. pct, now) == 1 then alerts[#alerts + 1] = i .. ':' .. pct end
    end
  end
end
for _, a in ipairs(alerts) do out[#out + 1] = a end
return out
`;

/** KEYS: per budget s. ARGV: per budget from, to. Answers spent micros, tokens, oldest per budget. */
const SPENT = `${COMMON}
local out = {}
for i = 1, #KEYS do
  local m, t, oldest = spend(KEYS[i], tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i]))
  out[#out + 1] = m
  out[#out + 1] = t
  out[#out + 1] = oldest
end
return out
`;

type ScriptedRedis = Redis & {
  gatewayBudgetReserve(numKeys: number, ...args: Array<string | number>): Promise<Array<number | string>>;
  gatewayBudgetSettle(numKeys: number, ...args: Array<string | number>): Promise<Array<number | string>>;
  gatewayBudgetSpent(numKeys: number, ...args: Array<string | number>): Promise<number[]>;
};

/** The ledger on the shared Redis: one script call per reserve and per settle (EVALSHA; the script is sent once). */
export class RedisLedgerBackend implements LedgerBackend {
  private readonly redis: ScriptedRedis;

  constructor(
    redis: Redis,
    private readonly prefix: string,
  ) {
    if (!(redis as unknown as Partial<ScriptedRedis>).gatewayBudgetReserve) {
      redis.defineCommand('gatewayBudgetReserve', { lua: RESERVE });
      redis.defineCommand('gatewayBudgetSettle', { lua: SETTLE });
      redis.defineCommand('gatewayBudgetSpent', { lua: SPENT });
    }
    this.redis = redis as unknown as ScriptedRedis;
  }

  private base(id: string): string {
    return `${this.prefix}budget:${id}`;
  }

  private keys(plans: readonly BudgetPlan[]): string[] {
    return plans.flatMap((p) => {
      const base = this.base(p.id);
      return [`${base}:s:${p.series}`, `${base}:z`, `${base}:r`];
    });
  }

  async reserve(plans: readonly BudgetPlan[], r: Reservation, expiresAt: number, clockMs: number): Promise<BackendReserve> {
    const keys = this.keys(plans);
    const args = plans.flatMap((p) => [p.from, p.to, p.limitMicros ?? -1, p.limitTokens ?? -1, p.block ? 1 : 0]);
    const out = await this.redis.gatewayBudgetReserve(keys.length, ...keys, clockMs, expiresAt, r.id, r.micros, r.tokens, ...args);
    if (Number(out[0]) === 1) return { ok: true, usedMicros: out.slice(1).map(Number) };
    return { ok: false, index: Number(out[1]) - 1, oldest: Number(out[2]) };
  }

  async settle(plans: readonly BudgetPlan[], reservationId: string, actual: { micros: number; tokens: number }, clockMs: number): Promise<BackendSettle> {
    const keys = [...this.keys(plans), `${this.prefix}budget-settled:${reservationId}`];
    const args = plans.flatMap((p) => [
      p.from,
      p.to,
      p.to - p.from + 1,
      p.limitMicros !== null ? 'm' : 't',
      p.alertWindow,
      p.alerts.map((a) => `${a.percent}:${a.level}`).join(','),
    ]);
    const out = await this.redis.gatewayBudgetSettle(keys.length, ...keys, clockMs, reservationId, actual.micros, actual.tokens, ...args);
    const usedMicros: number[] = [];
    const spent: Array<[number, number]> = [];
    for (let i = 0; i < plans.length; i++) {
      usedMicros.push(Number(out[3 * i]));
      spent.push([Number(out[3 * i + 1]), Number(out[3 * i + 2])]);
    }
    const alerts: SettledAlert[] = out.slice(3 * plans.length).map((a) => {
      const [i, percent] = String(a).split(':');
      const index = Number(i) - 1;
      return { index, percent: Number(percent), spentMicros: spent[index]![0], spentTokens: spent[index]![1] };
    });
    return { usedMicros, alerts };
  }

  async spent(plans: readonly BudgetPlan[]): Promise<BackendSpent[]> {
    if (!plans.length) return [];
    const keys = plans.map((p) => `${this.base(p.id)}:s:${p.series}`);
    const out = await this.redis.gatewayBudgetSpent(keys.length, ...keys, ...plans.flatMap((p) => [p.from, p.to]));
    return plans.map((_, i) => ({ micros: Number(out[3 * i]), tokens: Number(out[3 * i + 1]), oldest: Number(out[3 * i + 2]) }));
  }

  async extend(live: ReadonlyArray<{ reservationId: string; budgetIds: readonly string[] }>, expiresAt: number): Promise<void> {
    if (!live.length) return;
    const batch = this.redis.pipeline();
    // XX: a reservation already purged (or settled meanwhile) is not brought back.
    for (const l of live) for (const id of l.budgetIds) batch.zadd(`${this.base(id)}:z`, 'XX', expiresAt, l.reservationId);
    const results = await batch.exec();
    const failed = results?.find(([err]) => err);
    if (failed) throw failed[0];
  }
}
