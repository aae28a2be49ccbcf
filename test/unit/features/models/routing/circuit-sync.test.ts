import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import { BreakerOpen, BreakerRegistry } from '../../../../../src/features/models/routing/breakers.js';
import { redisCircuitSync } from '../../../../../src/features/models/routing/circuit-sync.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const logger = pino({ level: 'silent' });
const LABEL = { provider: 'openai', target: 'header' };

async function until(check: () => boolean, what: string): Promise<void> {
  const by = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > by) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Two gateway processes sharing one Redis: a circuit that opens or closes in one does so in the other. */
describe('circuit states shared over Redis', () => {
  const clients: Redis[] = [];
  const registries: BreakerRegistry[] = [];
  afterEach(async () => {
    for (const r of registries.splice(0)) r.close();
    for (const c of clients.splice(0)) await c.quit();
  });

  function gatewayProcess(prefix: string, cooldown: string): BreakerRegistry {
    const redis = new Redis(REDIS_URL);
    clients.push(redis);
    const registry = new BreakerRegistry({ failureThreshold: 2, cooldown }, redisCircuitSync(redis, prefix, logger));
    registries.push(registry);
    return registry;
  }

  const fail = async (registry: BreakerRegistry, key: string) =>
    registry
      .run(
        key,
        LABEL,
        () => true,
        async () => {
          throw new Error('upstream 503');
        },
      )
      .catch((err) => err);

  it('opens the circuit everywhere once one process sees the failures, and closes it everywhere after a good trial', async () => {
    const prefix = `gw-test-${randomBytes(4).toString('hex')}:`;
    const a = gatewayProcess(prefix, '300ms');
    const b = gatewayProcess(prefix, '300ms');
    const other = gatewayProcess(`gw-test-${randomBytes(4).toString('hex')}:`, '300ms');
    // Let the subscriptions settle before anything is published.
    await new Promise((r) => setTimeout(r, 200));
    const key = BreakerRegistry.keyFor('openai', 'http://upstream', 'sk-1');
    await fail(a, key);
    await fail(a, key);
    expect(a.state(key)).toBe('open');
    await until(() => b.state(key) === 'open', 'the other process opens the circuit');
    // b refuses at once, without calling the target.
    let called = false;
    const refused = await b
      .run(
        key,
        LABEL,
        () => true,
        async () => {
          called = true;
        },
      )
      .catch((err) => err);
    expect(refused).toBeInstanceOf(BreakerOpen);
    expect(called).toBe(false);
    // A gateway with another key prefix is another gateway: untouched.
    expect(other.state(key)).toBe('closed');

    // After the cooldown, a good trial in b closes it in a too.
    await until(() => b.state(key) === 'half-open', 'half-open after the cooldown');
    await b.run(
      key,
      LABEL,
      () => true,
      async () => undefined,
    );
    expect(b.state(key)).toBe('closed');
    await until(() => a.state(key) === 'closed', 'the first process closes the circuit');
  });
});
