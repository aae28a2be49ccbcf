import { describe, expect, it } from 'vitest';
import { FramedParts } from '../../../../../src/features/models/stages/upstream-stream.js';
import { eventFramer } from '../../../../../src/contract/framing.js';
import type { StreamPart } from '../../../../../src/contract/stream-parts.js';
import type { FramedEvent, StreamMapper } from '../../../../../src/features/models/providers/provider.js';

/** Upstream chunks as the reader gets them; `returned` tells whether reading was stopped. */
function chunks(texts: string[]) {
  let i = 0;
  const state = { returned: 0 };
  const iterator: AsyncIterator<Buffer> = {
    next: () => Promise.resolve(i < texts.length ? { value: Buffer.from(texts[i++]!), done: false } : { value: undefined, done: true }),
    return: () => {
      state.returned++;
      return Promise.resolve({ value: undefined, done: true });
    },
  };
  return { iterator, state };
}

/** data "t:<text>" is a text part, "done" the end, "boom" a failing event. */
function mapper(end?: () => StreamPart[] | undefined): StreamMapper {
  const map = ((event: FramedEvent) => {
    const data = (event as { data: string }).data;
    if (data === 'done') return { type: 'done' };
    if (data === 'boom') throw new Error('bad event');
    if (data.startsWith('t:')) return { type: 'text', choice: 0, text: data.slice(2) };
    return undefined;
  }) as StreamMapper;
  if (end) map.end = end;
  return map;
}

/** The parts of `source` over SSE, failures mapped as `mapped: <message>`; `finished` records what finish was told. */
function framed(source: AsyncIterator<Buffer>, map: StreamMapper = mapper()) {
  const finished: boolean[] = [];
  const parts = new FramedParts(
    eventFramer('sse')!,
    source,
    map,
    (err) => new Error(`mapped: ${(err as Error).message}`),
    (complete) => finished.push(complete),
  );
  return { parts, finished };
}

async function drain(parts: FramedParts): Promise<StreamPart[][]> {
  const out: StreamPart[][] = [];
  for (;;) {
    const step = await parts.next();
    if (step.done) return out;
    out.push(step.value);
  }
}

describe('FramedParts', () => {
  it('gives the parts of each upstream read together, events split across reads included, and tells finish once that the answer is whole', async () => {
    const { iterator, state } = chunks(['data: t:a\n\ndata: t:', 'b\n\n: comment\n\n', 'data: t:c\n\ndata: done\n\n']);
    const { parts, finished } = framed(iterator);
    expect(await drain(parts)).toEqual([
      [{ type: 'text', choice: 0, text: 'a' }],
      [{ type: 'text', choice: 0, text: 'b' }],
      [{ type: 'text', choice: 0, text: 'c' }, { type: 'done' }],
    ]);
    expect(finished).toEqual([true]);
    expect(state.returned).toBe(1);
    expect(await parts.next()).toEqual({ value: undefined, done: true });
    expect(finished).toEqual([true]);
  });

  it('gives the parts before a failing event first, then the failure as `fail` maps it, and the reading ends incomplete', async () => {
    const { iterator } = chunks(['data: t:a\n\ndata: boom\n\ndata: t:never\n\n']);
    const { parts, finished } = framed(iterator);
    expect(await parts.next()).toEqual({ value: [{ type: 'text', choice: 0, text: 'a' }], done: false });
    await expect(parts.next()).rejects.toThrow('mapped: bad event');
    expect(finished).toEqual([false]);
    expect(await parts.next()).toEqual({ value: undefined, done: true });
  });

  it('maps a failure of the upstream body the same way', async () => {
    const failing: AsyncIterator<Buffer> = { next: () => Promise.reject(new Error('socket closed')) };
    const { parts, finished } = framed(failing);
    await expect(parts.next()).rejects.toThrow('mapped: socket closed');
    expect(finished).toEqual([false]);
  });

  it("adds the provider's tail when the body ends without the answer's end, and a last event without its blank line", async () => {
    const { iterator } = chunks(['data: t:a\n\ndata: t:b\n']);
    const { parts, finished } = framed(
      iterator,
      mapper(() => [{ type: 'done' }]),
    );
    expect(await drain(parts)).toEqual([[{ type: 'text', choice: 0, text: 'a' }], [{ type: 'text', choice: 0, text: 'b' }, { type: 'done' }]]);
    expect(finished).toEqual([true]);
  });

  it('stops reading when told to (return), the answer not whole', async () => {
    const { iterator, state } = chunks(['data: t:a\n\n', 'data: t:b\n\n']);
    const { parts, finished } = framed(iterator);
    expect((await parts.next()).value).toEqual([{ type: 'text', choice: 0, text: 'a' }]);
    expect(await parts.return()).toEqual({ value: undefined, done: true });
    expect(finished).toEqual([false]);
    expect(state.returned).toBe(1);
    expect(await parts.next()).toEqual({ value: undefined, done: true });
  });
});
