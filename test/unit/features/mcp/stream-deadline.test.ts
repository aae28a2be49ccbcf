import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CLIENT_ANSWER_MS } from '../../../../src/features/mcp/relay/call-deadlines.js';
import { watchEventStream } from '../../../../src/features/mcp/relay/stream-deadline.js';

const event = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;
/** A chunk of the stream, as the HTTP body hands it on. */
const say = (body: PassThrough, text: string) => body.emit('data', Buffer.from(text));

describe('watchEventStream: the call timeout of requests answered on an event stream', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('gives the unanswered requests to expired after ms of silence; any bytes restart the wait', () => {
    const body = new PassThrough();
    const expired: Array<Array<string | number>> = [];
    watchEventStream(body, [1, 2], 1000, (ids) => expired.push(ids));
    vi.advanceTimersByTime(800);
    say(body, event({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1 } }));
    vi.advanceTimersByTime(800);
    // An answer split over two chunks.
    const answer = event({ jsonrpc: '2.0', id: 1, result: {} });
    say(body, answer.slice(0, 10));
    say(body, answer.slice(10));
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1000);
    expect(expired).toEqual([[2]]);
  });

  it('waits CLIENT_ANSWER_MS once the server asked the client something; nothing when all are answered', () => {
    const body = new PassThrough();
    const expired: Array<Array<string | number>> = [];
    watchEventStream(body, ['a'], 1000, (ids) => expired.push(ids));
    say(body, event({ jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: {} }));
    vi.advanceTimersByTime(CLIENT_ANSWER_MS - 1);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual([['a']]);

    const other = new PassThrough();
    watchEventStream(other, ['b'], 1000, (ids) => expired.push(ids));
    say(other, event({ jsonrpc: '2.0', id: 'b', error: { code: -1, message: 'no' } }));
    vi.advanceTimersByTime(5000);
    expect(expired).toEqual([['a']]);
  });

  it('stops when the stream closes, or when told to', async () => {
    const expired: Array<Array<string | number>> = [];
    const body = new PassThrough();
    const stop = watchEventStream(body, [1], 1000, (ids) => expired.push(ids));
    stop();
    const closed = new PassThrough();
    watchEventStream(closed, [1], 1000, (ids) => expired.push(ids));
    const gone = new Promise((resolve) => closed.once('close', resolve));
    closed.destroy();
    await gone;
    vi.advanceTimersByTime(5000);
    expect(expired).toEqual([]);
  });
});
