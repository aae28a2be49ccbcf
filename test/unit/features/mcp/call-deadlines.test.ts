import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CallDeadlines, CLIENT_ANSWER_MS } from '../../../../src/features/mcp/relay/call-deadlines.js';

describe('CallDeadlines: a relayed request waits the call timeout without word from the server', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('expires a request after ms, not one that was answered', () => {
    const expired: Array<string | number> = [];
    const deadlines = new CallDeadlines(1000, (id) => expired.push(id));
    deadlines.start(1);
    deadlines.start('two');
    deadlines.done('two');
    vi.advanceTimersByTime(999);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual([1]);
    expect(deadlines.size).toBe(0);
  });

  it('starts the wait again with each word about the request', () => {
    const expired: Array<string | number> = [];
    const deadlines = new CallDeadlines(1000, (id) => expired.push(id));
    deadlines.start(1);
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(800);
      deadlines.activity(1);
    }
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1000);
    expect(expired).toEqual([1]);
  });

  it('waits CLIENT_ANSWER_MS at least once the server asked the client something', () => {
    const expired: Array<string | number> = [];
    const deadlines = new CallDeadlines(1000, (id) => expired.push(id));
    deadlines.start(1);
    deadlines.asked(1);
    vi.advanceTimersByTime(CLIENT_ANSWER_MS - 1);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual([1]);
  });

  it('clear stops every wait', () => {
    const expired: Array<string | number> = [];
    const deadlines = new CallDeadlines(1000, (id) => expired.push(id));
    deadlines.start(1);
    deadlines.start(2);
    deadlines.clear();
    vi.advanceTimersByTime(5000);
    expect(expired).toEqual([]);
  });
});
