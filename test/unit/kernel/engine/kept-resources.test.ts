import { describe, expect, it } from 'vitest';
import { KeptResources } from '../../../../src/kernel/engine/kept-resources.js';

/** What a reload keeps: a resource whose settings did not change is taken over, the others closed when the old config retires. */
describe('KeptResources', () => {
  function generation(previous: KeptResources | undefined, settings: Record<string, unknown>, closed: string[]) {
    const resources = new KeptResources(previous);
    const made: Record<string, { name: string }> = {};
    for (const [key, value] of Object.entries(settings))
      made[key] = resources.keep(
        key,
        value,
        () => ({ name: `${key}@${JSON.stringify(value)}` }),
        (r) => void closed.push(r.name),
      );
    return { resources, made };
  }

  it('takes over unchanged resources (key order of settings does not matter) and closes the replaced ones on retire', async () => {
    const closed: string[] = [];
    const first = generation(undefined, { store: { type: 'sqlite', path: 'a.db' }, mcp: { x: 1 } }, closed);
    const second = generation(first.resources, { store: { path: 'a.db', type: 'sqlite' }, mcp: { x: 2 } }, closed);
    expect(second.made.store).toBe(first.made.store);
    expect(second.made.mcp).not.toBe(first.made.mcp);
    expect(second.resources.wasKept('store')).toBe(true);
    expect(second.resources.wasKept('mcp')).toBe(false);
    await first.resources.retire(second.resources);
    expect(closed).toEqual(['mcp@{"x":1}']);
    await second.resources.closeAll();
    expect(closed).toEqual(['mcp@{"x":1}', 'mcp@{"x":2}', 'store@{"type":"sqlite","path":"a.db"}']);
  });

  it('a generation that failed to build closes only what it made; the running one keeps everything', async () => {
    const closed: string[] = [];
    const running = generation(undefined, { store: 's', redis: 'r1' }, closed);
    const failed = generation(running.resources, { store: 's', redis: 'r2' }, closed);
    await failed.resources.abandon();
    expect(closed).toEqual(['redis@"r2"']);
    await running.resources.closeAll();
    expect(closed).toEqual(['redis@"r2"', 'redis@"r1"', 'store@"s"']);
  });
});
