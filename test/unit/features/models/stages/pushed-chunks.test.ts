import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { OpenAIPassthrough, primePassthrough, UpstreamChunks, type PassthroughOptions } from '../../../../../src/features/models/stages/upstream-stream.js';
import { AttemptTimers } from '../../../../../src/features/models/routing/attempt-timers.js';
import { OPENAI_PASSTHROUGH_STREAM } from '../../../../../src/features/models/providers/openai-compatible/openai-compatible.js';
import type { EncodedSink } from '../../../../../src/kernel/engine/context.js';
import { splitAt } from '../../../../helpers/byte-pieces.js';

/**
 * The push path (OpenAIPassthrough.pushTo) against the pull path (encoded()): for any OpenAI
 * stream, cut into writes anywhere, both hand the caller the same bytes, see the same end and
 * fail the same way, whatever the caller's socket says about backpressure.
 */

const chunk = (text: string) =>
  JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: text }, finish_reason: null }] });

const plain = fc.string({ maxLength: 12 }).map((t) => `data: ${chunk(t)}\n\n`);
/** The events a stream is made of: mostly plain chunks, and what the scan hands to the parser or stops at. */
const event = fc.oneof(
  { weight: 12, arbitrary: plain },
  { weight: 1, arbitrary: fc.constant(': keep-alive\n\n') },
  { weight: 1, arbitrary: fc.constant(`id: 7\ndata: ${chunk('id')}\n\n`) },
  { weight: 1, arbitrary: fc.constant(`data: ${chunk('crlf')}\r\n\r\n`) },
  { weight: 1, arbitrary: fc.constant('data: {"error":{"message":"the model fell over","type":"server_error"}}\n\n') },
);

/**
 * A stream: a plain first chunk (mostly: else it is read as parts, by neither path), events,
 * then (usually) [DONE], sometimes something after it or an end without a blank line.
 */
const stream = fc
  .tuple(
    fc.oneof({ weight: 9, arbitrary: plain }, { weight: 1, arbitrary: event }),
    fc.array(event, { maxLength: 12 }),
    fc.constantFrom('data: [DONE]\n\n', 'data: [DONE]\n\n', 'data: [DONE]\n', '', `data: [DONE]\n\ndata: ${chunk('late')}\n\n`),
  )
  .map(([first, events, end]) => ({ first: Buffer.from(first, 'utf8'), rest: Buffer.from(events.join('') + end, 'utf8') }));

/** Where the stream is cut into writes (positions as fractions of its length). */
const cuts = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 10 });

interface Outcome {
  bytes: string;
  ended: boolean;
  error?: string;
  /** Push only: the chunk with the answer's end was written as the last one. */
  last?: boolean;
}

function pieces(bytes: Buffer, at: number[]): Buffer[] {
  if (!bytes.length) return [];
  return splitAt(
    bytes,
    [...new Set(at.map((f) => Math.floor(f * bytes.length)))].filter((p) => p > 0 && p < bytes.length).sort((a, b) => a - b),
  );
}

/** Writes the pieces as an upstream would: each its own turn of the event loop, then the end. */
async function feed(body: PassThrough, parts: Buffer[]): Promise<void> {
  for (const part of parts) {
    await new Promise((r) => setImmediate(r));
    if (body.destroyed) return;
    body.write(part);
  }
  await new Promise((r) => setImmediate(r));
  if (!body.destroyed) body.end();
}

/** The first event is its own write (the reads after it are the push path's); the rest is cut at `at`. */
async function run(bytes: { first: Buffer; rest: Buffer }, at: number[], read: (stream: OpenAIPassthrough) => Promise<Outcome>): Promise<Outcome | 'parsed'> {
  const body = new PassThrough();
  const timers = new AttemptTimers('test', undefined, undefined);
  const upstream = new UpstreamChunks(body as never, timers);
  const options: PassthroughOptions = {
    format: 'chat',
    includeUsage: false,
    map: OPENAI_PASSTHROUGH_STREAM.createMapper({} as never),
    fail: (err) => (err instanceof Error ? err : new Error(String(err))),
    onUsage: () => undefined,
  };
  const feeding = feed(body, [bytes.first, ...pieces(bytes.rest, at)]);
  try {
    const primed = await primePassthrough(upstream, timers, options);
    // A stream whose first events the scan does not pass is read as parts: neither path.
    if (!(primed instanceof OpenAIPassthrough)) return 'parsed';
    return await read(primed);
  } catch (err) {
    return { bytes: '', ended: false, error: (err as Error).message };
  } finally {
    await feeding;
  }
}

async function pulled(stream: OpenAIPassthrough): Promise<Outcome> {
  const out: Buffer[] = [];
  try {
    for await (const c of stream.encoded()) {
      out.push(c);
      if (stream.ended) break;
    }
  } catch (err) {
    return { bytes: Buffer.concat(out).toString('utf8'), ended: stream.ended, error: (err as Error).message };
  }
  return { bytes: Buffer.concat(out).toString('utf8'), ended: stream.ended };
}

function pushed(full: boolean[]) {
  return async (stream: OpenAIPassthrough): Promise<Outcome> => {
    const out: Buffer[] = [];
    let last = false;
    let n = 0;
    const sink: EncodedSink = {
      write(c, isLast) {
        out.push(c);
        last ||= isLast;
        // The caller's socket is full now and then: the source waits for its drain.
        return !full[n++ % Math.max(1, full.length)];
      },
      onDrain(resume) {
        setImmediate(resume);
      },
      closed: () => false,
    };
    try {
      await stream.pushTo(sink);
    } catch (err) {
      return { bytes: Buffer.concat(out).toString('utf8'), ended: stream.ended, error: (err as Error).message, last };
    }
    return { bytes: Buffer.concat(out).toString('utf8'), ended: stream.ended, last };
  };
}

describe('pushed passthrough streams', () => {
  it('give the same bytes, end and failure as the pulled ones, however the upstream cuts its writes', async () => {
    await fc.assert(
      fc.asyncProperty(stream, cuts, fc.array(fc.boolean(), { maxLength: 4 }), async (bytes, at, full) => {
        const pull = await run(bytes, at, pulled);
        const push = await run(bytes, at, pushed(full));
        if (pull === 'parsed' || push === 'parsed') {
          expect(push).toBe(pull);
          return;
        }
        const { last, ...rest } = push;
        expect(rest).toEqual(pull);
        // The chunk with the answer's end is written as the last one, and only then.
        if (last !== undefined) expect(last).toBe(push.ended);
      }),
      { numRuns: 200, seed: 20261127 },
    );
  });
});
