import { describe, expect, it, vi } from 'vitest';

const flags = vi.hoisted(() => [] as string[]);
vi.mock('node:v8', async (importOriginal) => ({ ...(await importOriginal<typeof import('node:v8')>()), setFlagsFromString: (flag: string) => flags.push(flag) }));

const { keepRequestsYoung, setOnCommandLine } = await import('../../../../src/kernel/memory/startup-heap.js');

describe('startup heap settings', () => {
  it('sees a V8 flag given on the command line in either spelling, with or without a value', () => {
    expect(setOnCommandLine(['--heap-growing-percent=50'], 'heap-growing-percent')).toBe(true);
    expect(setOnCommandLine(['--inspect', '--heap_growing_percent=5'], 'heap-growing-percent')).toBe(true);
    expect(setOnCommandLine(['--heap-growing-percent'], 'heap-growing-percent')).toBe(true);
    expect(setOnCommandLine(['--heap-growing-percentage=5', '--max-old-space-size=100'], 'heap-growing-percent')).toBe(false);
    expect(setOnCommandLine([], 'heap-growing-percent')).toBe(false);
  });

  it('turns allocation-site pretenuring off unless node was told either way', () => {
    flags.length = 0;
    keepRequestsYoung(['--max-old-space-size=100']);
    expect(flags).toEqual(['--no-allocation-site-pretenuring']);
    for (const argv of [['--allocation-site-pretenuring'], ['--no-allocation-site-pretenuring'], ['--no_allocation_site_pretenuring']]) {
      flags.length = 0;
      keepRequestsYoung(argv);
      expect(flags).toEqual([]);
    }
  });
});
