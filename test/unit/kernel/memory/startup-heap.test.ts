import { describe, expect, it } from 'vitest';
import { setOnCommandLine } from '../../../../src/kernel/memory/startup-heap.js';

describe('startup heap settings', () => {
  it('sees a V8 flag given on the command line in either spelling, with or without a value', () => {
    expect(setOnCommandLine(['--heap-growing-percent=50'], 'heap-growing-percent')).toBe(true);
    expect(setOnCommandLine(['--inspect', '--heap_growing_percent=5'], 'heap-growing-percent')).toBe(true);
    expect(setOnCommandLine(['--heap-growing-percent'], 'heap-growing-percent')).toBe(true);
    expect(setOnCommandLine(['--heap-growing-percentage=5', '--max-old-space-size=100'], 'heap-growing-percent')).toBe(false);
    expect(setOnCommandLine([], 'heap-growing-percent')).toBe(false);
  });
});
