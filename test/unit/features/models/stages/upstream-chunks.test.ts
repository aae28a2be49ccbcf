import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { UpstreamChunks } from '../../../../../src/features/models/stages/upstream-stream.js';
import { AttemptTimers } from '../../../../../src/features/models/routing/attempt-timers.js';

/** An upstream body as undici hands it: a Readable of Buffers (chunks pushed as the socket gives them). */
function body() {
  return new PassThrough();
}

const timers = () => new AttemptTimers('test', undefined, undefined);

describe('UpstreamChunks', () => {
  it('hands the chunks of one read (pushed together) to the waiting reader as one Buffer, in order', async () => {
    const source = body();
    const reader = new UpstreamChunks(source as never, timers());
    const first = reader.next();
    // Several HTTP chunks of one socket read arrive in the same turn of the event loop.
    source.write('data: a\n\n');
    source.write('data: b\n\n');
    source.write('data: c\n\n');
    const step = await first;
    expect(step.done).toBe(false);
    expect(step.value!.toString()).toBe('data: a\n\ndata: b\n\ndata: c\n\n');
    // Later reads come as their own chunk.
    const second = reader.next();
    await new Promise((r) => setTimeout(r, 5));
    source.write('data: d\n\n');
    expect((await second).value!.toString()).toBe('data: d\n\n');
    source.end();
    expect((await reader.next()).done).toBe(true);
  });

  it('gives what was held before the end or a failure first', async () => {
    const source = body();
    const reader = new UpstreamChunks(source as never, timers());
    const first = reader.next();
    source.write('x');
    source.destroy(new Error('socket hang up'));
    expect((await first).value!.toString()).toBe('x');
    await expect(reader.next()).rejects.toThrow('socket hang up');
  });

  it('pauses the upstream body only when more than 64 KB wait for the reader, and resumes it when they are taken', async () => {
    const source = body();
    const reader = new UpstreamChunks(source as never, timers());
    source.write(Buffer.alloc(1024, 'a'));
    await new Promise((r) => setImmediate(r));
    expect(source.isPaused()).toBe(false);
    for (let i = 0; i < 70; i++) source.write(Buffer.alloc(1024, 'b'));
    await new Promise((r) => setImmediate(r));
    expect(source.isPaused()).toBe(true);
    const step = await reader.next();
    expect(step.value!.length).toBeGreaterThan(64 * 1024);
    expect(source.isPaused()).toBe(false);
    reader.finish(false);
  });

  it('push mode: the chunks of one read go to the listener as one Buffer, then the end, with no reader asking', async () => {
    const source = body();
    const reader = new UpstreamChunks(source as never, timers());
    const got: string[] = [];
    let ended = false;
    reader.listen({ chunk: (c) => got.push(c.toString()), end: () => (ended = true), fail: (err) => got.push(`failed: ${String(err)}`) });
    source.write('data: a\n\n');
    source.write('data: b\n\n');
    await new Promise((r) => setImmediate(r));
    expect(got).toEqual(['data: a\n\ndata: b\n\n']);
    source.write('data: c\n\n');
    source.end();
    await new Promise((r) => setImmediate(r));
    expect(got).toEqual(['data: a\n\ndata: b\n\n', 'data: c\n\n']);
    expect(ended).toBe(true);
  });

  it('push mode: chunks held before listening go first; a failure after them; back to pull mode holds what comes', async () => {
    const source = body();
    const reader = new UpstreamChunks(source as never, timers());
    source.write('held');
    await new Promise((r) => setImmediate(r));
    const got: string[] = [];
    const listener = { chunk: (c: Buffer) => got.push(c.toString()), end: () => got.push('end'), fail: (err: unknown) => got.push(`failed: ${(err as Error).message}`) };
    reader.listen(listener);
    await new Promise((r) => setImmediate(r));
    expect(got).toEqual(['held']);
    reader.listen(undefined);
    source.write('pulled');
    await new Promise((r) => setImmediate(r));
    expect(got).toEqual(['held']);
    expect((await reader.next()).value!.toString()).toBe('pulled');
    reader.listen(listener);
    source.destroy(new Error('socket hang up'));
    await new Promise((r) => setImmediate(r));
    expect(got).toEqual(['held', 'failed: socket hang up']);
  });

  it("push mode's pause holds the body until resume", async () => {
    const source = body();
    const reader = new UpstreamChunks(source as never, timers());
    const got: Buffer[] = [];
    reader.listen({ chunk: (c) => got.push(c), end: () => undefined, fail: () => undefined });
    reader.pause();
    expect(source.isPaused()).toBe(true);
    source.write('x');
    await new Promise((r) => setImmediate(r));
    // Nothing flows, and nothing resumes the body, until the caller's socket drains.
    expect(source.isPaused()).toBe(true);
    expect(got).toEqual([]);
    reader.resume();
    expect(source.isPaused()).toBe(false);
    await new Promise((r) => setImmediate(r));
    expect(Buffer.concat(got).toString()).toBe('x');
    reader.finish(false);
  });
});
