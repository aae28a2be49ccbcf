import { describe, expect, it } from 'vitest';
import { CallerSignal } from '../../../../src/kernel/engine/caller-signal.js';

describe('CallerSignal', () => {
  it('runs its one listener once on abort, with the reason set', () => {
    const signal = new CallerSignal();
    const calls: string[] = [];
    signal.once('abort', () => calls.push(`a ${signal.aborted} ${(signal.reason as Error).name}`));
    signal.abort();
    signal.abort();
    expect(calls).toEqual(['a true AbortError']);
  });

  it('runs every listener in the order added, none removed, and none added after the abort', () => {
    const signal = new CallerSignal();
    const calls: string[] = [];
    const a = () => calls.push('a');
    const b = () => calls.push('b');
    const c = () => calls.push('c');
    signal.on('abort', a).on('abort', b).on('abort', c);
    signal.removeListener('abort', b);
    signal.on('close', () => calls.push('not an abort'));
    signal.abort();
    signal.on('abort', () => calls.push('late'));
    expect(calls).toEqual(['a', 'c']);
  });

  it('forgets a single listener removed before the abort, and ignores one it never had', () => {
    const signal = new CallerSignal();
    const calls: string[] = [];
    const a = () => calls.push('a');
    signal.on('abort', a);
    signal.off('abort', () => calls.push('other'));
    signal.off('abort', a);
    signal.abort();
    expect(calls).toEqual([]);
  });

  it('keeps the listener left after removing the first of two', () => {
    const signal = new CallerSignal();
    const calls: string[] = [];
    const a = () => calls.push('a');
    signal.on('abort', a).on('abort', () => calls.push('b'));
    signal.removeListener('abort', a);
    signal.abort();
    expect(calls).toEqual(['b']);
  });
});
