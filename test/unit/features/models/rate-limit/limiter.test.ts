import { describe, expect, it } from 'vitest';
import type { GatewayContext, Identity } from '../../../../../src/kernel/engine/context.js';
import { GatewayError } from '../../../../../src/contract/errors/gateway-error.js';
import { RateLimiter, TOKEN_SLOTS } from '../../../../../src/features/models/rate-limit/limiter.js';
import { MemoryRateCounter } from '../../../../../src/features/models/rate-limit/memory-counter.js';
import { createLogger } from '../../../../../src/kernel/observability/logger.js';
import type { CounterSlot } from '../../../../../src/features/models/rate-limit/counter.js';
import { PROVIDER_KEY } from '../../../../../src/features/models/model-request.js';
import { makeContext } from '../../../../helpers/context.js';

const logger = createLogger('silent');

function ctx(options: { identity?: Identity; key?: string; path?: string; ip?: string } = {}): GatewayContext {
  const path = options.path ?? '/v1/chat/completions';
  const c = makeContext({ key: `POST ${path}`, path, method: 'POST', body: 'json' }, { url: path, ip: options.ip });
  c.identity = options.identity ?? null;
  if (options.key) c.set(PROVIDER_KEY, options.key);
  return c;
}

async function status(limiter: RateLimiter, c: GatewayContext): Promise<number> {
  try {
    await limiter.check(c);
    return 200;
  } catch (err) {
    return (err as GatewayError).status;
  }
}

describe('RateLimiter', () => {
  it('counts per gateway credential, user and team from the identity', async () => {
    const limiter = new RateLimiter(
      [
        { per: 'token', limit: 2, window: '1h' },
        { per: 'user', limit: 3, window: '1h' },
        { per: 'team', limit: 4, window: '1h' },
      ],
      new MemoryRateCounter(),
      logger,
    );
    const ann = (id: string): Identity => ({ kind: 'token', id, user: 'ann', team: 'red' });
    const bob: Identity = { kind: 'api-key', id: 'k9', user: 'bob', team: 'red' };
    expect(await status(limiter, ctx({ identity: ann('t1') }))).toBe(200);
    expect(await status(limiter, ctx({ identity: ann('t1') }))).toBe(200);
    expect(await status(limiter, ctx({ identity: ann('t1') }))).toBe(429); // token t1: 3 > 2
    expect(await status(limiter, ctx({ identity: ann('t2') }))).toBe(429); // user ann: 4 > 3
    expect(await status(limiter, ctx({ identity: bob }))).toBe(429); // team red: 5 > 4
    // No identity: none of these rules count it.
    const anonymous = ctx();
    expect(await status(limiter, anonymous)).toBe(200);
    expect(anonymous.responseHeaders['x-ratelimit-limit']).toBeUndefined();
  });

  it('shows the tightest rule in the headers', async () => {
    const limiter = new RateLimiter(
      [
        { per: 'key', limit: 10, window: '1m' },
        { per: 'ip', limit: 2, window: '1h' },
      ],
      new MemoryRateCounter(),
      logger,
    );
    const c = ctx({ key: 'sk-1' });
    await limiter.check(c);
    expect(c.responseHeaders).toMatchObject({ 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '1' });
    expect(Number(c.responseHeaders['x-ratelimit-reset']) % 3600).toBe(0);
  });

  it('matches routes by exact path or prefix*', async () => {
    const limiter = new RateLimiter([{ per: 'ip', limit: 1, window: '1h', routes: ['/v1/files*', '/v1/embeddings'] }], new MemoryRateCounter(), logger);
    expect(await status(limiter, ctx({ path: '/v1/chat/completions', ip: 'a' }))).toBe(200);
    expect(await status(limiter, ctx({ path: '/v1/chat/completions', ip: 'a' }))).toBe(200);
    expect(await status(limiter, ctx({ path: '/v1/files/{file_id}', ip: 'b' }))).toBe(200);
    expect(await status(limiter, ctx({ path: '/v1/files', ip: 'b' }))).toBe(429);
    expect(await status(limiter, ctx({ path: '/v1/embeddings', ip: 'c' }))).toBe(200);
    expect(await status(limiter, ctx({ path: '/v1/embeddings', ip: 'c' }))).toBe(429);
  });

  it('refuses once a token budget is used up and names it', async () => {
    const limiter = new RateLimiter([{ per: 'key', limit: 100, window: '1h', tokens: 10 }], new MemoryRateCounter(), logger);
    const first = ctx({ key: 'k' });
    await limiter.check(first);
    await limiter.charge(first.get(TOKEN_SLOTS) as CounterSlot[], 10);
    const err = await limiter.check(ctx({ key: 'k' })).catch((e) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect(err.message).toMatch(/^Rate limit exceeded: 10 tokens per 1h per key\./);
    expect(err.headers['retry-after']).toMatch(/^\d+$/);
  });

  it('lets requests pass (uncounted) when the counter store fails', async () => {
    const broken = { hit: async () => Promise.reject(new Error('down')), addTokens: async () => undefined };
    const limiter = new RateLimiter([{ per: 'ip', limit: 1, window: '1h' }], broken, logger);
    expect(await status(limiter, ctx())).toBe(200);
    expect(await status(limiter, ctx())).toBe(200);
  });
});
