import { afterEach, describe, expect, it } from 'vitest';
import { BreakerOpen, BreakerRegistry } from '../../../../../src/features/models/routing/breakers.js';

class Fail extends Error {
  constructor(readonly counts: boolean) {
    super('fail');
  }
}

const counts = (err: unknown) => (err as Fail).counts;
const LABEL = { provider: 'openai', target: 'header' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('BreakerRegistry', () => {
  let registry: BreakerRegistry;
  afterEach(() => registry?.close());

  async function run(key: string, outcome: 'ok' | 'fail' | 'client-error'): Promise<'ran' | 'failed' | 'open'> {
    try {
      await registry.run(key, LABEL, counts, async () => {
        if (outcome === 'fail') throw new Fail(true);
        if (outcome === 'client-error') throw new Fail(false);
      });
      return 'ran';
    } catch (err) {
      if (err instanceof BreakerOpen) return 'open';
      return 'failed';
    }
  }

  it('opens after failureThreshold consecutive failures, and a success in between resets the count', async () => {
    registry = new BreakerRegistry({ failureThreshold: 3, cooldown: '30s' });
    expect(await run('t', 'fail')).toBe('failed');
    expect(await run('t', 'fail')).toBe('failed');
    expect(await run('t', 'ok')).toBe('ran');
    expect(await run('t', 'fail')).toBe('failed');
    expect(await run('t', 'fail')).toBe('failed');
    expect(registry.state('t')).toBe('closed');
    expect(await run('t', 'fail')).toBe('failed');
    expect(registry.state('t')).toBe('open');
    expect(await run('t', 'ok')).toBe('open');
  });

  it('does not count failures the predicate refuses (4xx answers)', async () => {
    registry = new BreakerRegistry({ failureThreshold: 2, cooldown: '30s' });
    for (let i = 0; i < 5; i++) expect(await run('t', 'client-error')).toBe('failed');
    expect(registry.state('t')).toBe('closed');
  });

  it('keeps targets apart by key', async () => {
    registry = new BreakerRegistry({ failureThreshold: 1, cooldown: '30s' });
    await run(BreakerRegistry.keyFor('openai', 'http://a', 'k1'), 'fail');
    expect(registry.state(BreakerRegistry.keyFor('openai', 'http://a', 'k1'))).toBe('open');
    expect(registry.state(BreakerRegistry.keyFor('openai', 'http://a', 'k2'))).toBe('closed');
    expect(BreakerRegistry.keyFor('openai', 'http://a', 'secret-key')).not.toContain('secret-key');
  });

  it('half-opens after the cooldown: a failed trial opens it again, a good one closes it', async () => {
    registry = new BreakerRegistry({ failureThreshold: 1, cooldown: '150ms' });
    await run('t', 'fail');
    expect(registry.state('t')).toBe('open');
    await sleep(250);
    expect(registry.state('t')).toBe('half-open');
    expect(await run('t', 'fail')).toBe('failed');
    expect(registry.state('t')).toBe('open');
    await sleep(250);
    expect(await run('t', 'ok')).toBe('ran');
    expect(registry.state('t')).toBe('closed');
  });

  it('lets one trial call through while half-open', async () => {
    registry = new BreakerRegistry({ failureThreshold: 1, cooldown: '100ms' });
    await run('t', 'fail');
    await sleep(200);
    let release!: () => void;
    const trial = registry.run('t', LABEL, counts, () => new Promise<void>((r) => (release = r)));
    expect(await run('t', 'ok')).toBe('open');
    release();
    await trial;
    expect(registry.state('t')).toBe('closed');
  });
});
