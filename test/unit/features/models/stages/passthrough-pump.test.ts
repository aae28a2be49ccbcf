import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { EncodedSink } from '../../../../../src/kernel/engine/context.js';
import { OpenAIPassthrough, primePassthrough, UpstreamChunks } from '../../../../../src/features/models/stages/upstream-stream.js';
import { AttemptTimers } from '../../../../../src/features/models/routing/attempt-timers.js';
import { OPENAI_PASSTHROUGH_STREAM } from '../../../../../src/features/models/providers/openai-compatible/openai-compatible.js';

const chunk = (text: string) =>
  `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":${JSON.stringify(text)}},"finish_reason":null}]}\n\n`;

/** A stream's events: text chunks, sometimes one after the first that the scan hands to the parser (a comment, CRLF), mostly ending with [DONE]. */
const streamText = fc
  .record({
    texts: fc.array(fc.string({ maxLength: 6 }), { minLength: 1, maxLength: 8 }),
    odd: fc.constantFrom('', '', ': keep-alive\n\n', `data: ${JSON.stringify({ id: 'c1', choices: [] })}\r\n\r\n`),
    oddAt: fc.nat(8),
    end: fc.constantFrom('data: [DONE]\n\n', 'data: [DONE]\n\n', 'data: [DONE]\n\ndata: after\n\n', ''),
  })
  .map(({ texts, odd, oddAt, end }) => {
    const events = texts.map(chunk);
    events.splice(1 + Math.min(oddAt, events.length - 1), 0, odd);
    return events.join('') + end;
  });

/** The text cut into reads at the given points (each read its own turn of the event loop). */
function reads(text: string, cuts: number[]): Buffer[] {
  const bytes = Buffer.from(text);
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const p of [...points, bytes.length]) {
    if (p > from) out.push(bytes.subarray(from, p));
    from = Math.max(from, p);
  }
  return out;
}

/** Feeds the reads to an upstream body, one per turn of the event loop, then ends it. */
async function feed(body: PassThrough, pieces: Buffer[]): Promise<void> {
  for (const piece of pieces) {
    if (body.destroyed) return;
    body.write(piece);
    await new Promise((r) => setImmediate(r));
  }
  if (!body.destroyed) body.end();
}

/** The stream primed over the reads; undefined when its first read already goes to the parser (not passed through). */
async function passthrough(pieces: Buffer[]): Promise<{ body: PassThrough; stream: OpenAIPassthrough; fed: Promise<void> } | undefined> {
  const body = new PassThrough();
  const timers = new AttemptTimers('test', undefined, undefined);
  const upstream = new UpstreamChunks(body as never, timers);
  const fed = feed(body, pieces);
  const stream = await primePassthrough(upstream, timers, {
    format: 'chat',
    includeUsage: false,
    map: OPENAI_PASSTHROUGH_STREAM.createMapper({} as never),
    fail: (err) => err as Error,
    onUsage: () => undefined,
  });
  if (!(stream instanceof OpenAIPassthrough)) {
    body.destroy();
    await fed;
    return undefined;
  }
  return { body, stream, fed };
}

/** A sink that keeps what it is given; `slow`: every write asks to wait for drained(), given a turn later. */
function sink(slow = false) {
  const written: string[] = [];
  let waiting = false;
  let lastSeen = false;
  const out: EncodedSink & { written: string[]; closed: boolean; lastSeen: () => boolean } = {
    written,
    closed: false,
    lastSeen: () => lastSeen,
    write(chunk, last) {
      if (waiting) throw new Error('written while the caller was not reading');
      if (lastSeen) throw new Error('written after the last chunk');
      written.push(chunk.toString());
      lastSeen = last;
      waiting = slow && !last;
      return !waiting;
    },
    drained(then) {
      setImmediate(() => {
        waiting = false;
        then();
      });
    },
  };
  return out;
}

/** What encoded() gives for the same reads: the chunks and whether the answer ended whole. */
async function pulled(pieces: Buffer[]): Promise<{ text: string; ended: boolean; error?: string } | undefined> {
  const primed = await passthrough(pieces);
  if (!primed) return undefined;
  const { stream, fed } = primed;
  let text = '';
  let error: string | undefined;
  try {
    for await (const chunk of stream.encoded()) {
      text += chunk.toString();
      if (stream.ended) break;
    }
  } catch (err) {
    error = String(err);
  }
  await fed;
  return { text, ended: stream.ended, error };
}

describe('pumpPassed (OpenAIPassthrough.pump)', () => {
  it('pushes what encoded() gives, in the same chunks, whatever the reads and however slow the caller (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(streamText, fc.array(fc.nat(2000), { maxLength: 6 }), fc.boolean(), async (text, cuts, slow) => {
        const pieces = reads(text, cuts);
        const expected = await pulled(pieces);
        fc.pre(expected !== undefined);
        const { stream, fed } = (await passthrough(pieces))!;
        const out = sink(slow);
        let error: string | undefined;
        try {
          await stream.pump(out);
        } catch (err) {
          error = String(err);
        }
        await fed;
        expect(out.written.join('')).toBe(expected!.text);
        expect(stream.ended).toBe(expected!.ended);
        expect(out.lastSeen()).toBe(expected!.ended);
        expect(error).toBe(expected!.error);
      }),
      { numRuns: 60 },
    );
  });

  it('stops once the caller is gone, and cuts the upstream body', async () => {
    const body = new PassThrough();
    const timers = new AttemptTimers('test', undefined, undefined);
    const upstream = new UpstreamChunks(body as never, timers);
    body.write(chunk('a'));
    const stream = (await primePassthrough(upstream, timers, {
      format: 'chat',
      includeUsage: false,
      map: OPENAI_PASSTHROUGH_STREAM.createMapper({} as never),
      fail: (err) => err as Error,
      onUsage: () => undefined,
    })) as OpenAIPassthrough;
    const out = sink();
    const pumped = stream.pump(out)!;
    await new Promise((r) => setImmediate(r));
    expect(out.written).toEqual([chunk('a')]);
    out.closed = true;
    body.write(chunk('b'));
    await pumped;
    expect(out.written).toEqual([chunk('a')]);
    expect(stream.ended).toBe(false);
    expect(body.destroyed).toBe(true);
  });

  it('does not push while the idle timer watches the body (encoded() reads it)', async () => {
    const body = new PassThrough();
    const timers = new AttemptTimers('test', undefined, 60_000);
    const upstream = new UpstreamChunks(body as never, timers);
    body.write(chunk('a'));
    const stream = (await primePassthrough(upstream, timers, {
      format: 'chat',
      includeUsage: false,
      map: OPENAI_PASSTHROUGH_STREAM.createMapper({} as never),
      fail: (err) => err as Error,
      onUsage: () => undefined,
    })) as OpenAIPassthrough;
    expect(stream.pump(sink())).toBeUndefined();
    upstream.finish(false);
    timers.clear();
  });
});
