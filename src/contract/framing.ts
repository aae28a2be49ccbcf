import { parseSseBatches, SseFramer } from './sse/sse-parser.js';
import { parseNdjson } from './ndjson-parser.js';
import { parseAwsEventStream } from './aws-eventstream/decoder.js';

/** A framed upstream stream event, whatever the framing (SSE or NDJSON text, or an AWS event-stream message). */
export type FramedEvent = { event?: string; data: string } | { headers: Record<string, string>; payload: Buffer };

/** Splits an upstream body into events, the events of each arriving chunk together. */
type BatchFramer = (source: AsyncIterable<Buffer>) => AsyncIterable<FramedEvent[]>;
type Framer = (source: AsyncIterable<Buffer>) => AsyncIterable<FramedEvent>;

/** Upstream stream framings, parsed centrally; providers name one in their stream adapter. */
const FRAMERS: Record<string, BatchFramer> = {
  sse: parseSseBatches,
};

/** Registers a framing that yields one event at a time. */
export function registerFraming(name: string, framer: Framer): void {
  FRAMERS[name] = async function* (source) {
    for await (const event of framer(source)) yield [event];
  };
}

/** A framing that splits chunks synchronously: the events each chunk completes, then those the end completes. */
export interface EventFramer {
  push(chunk: Buffer): FramedEvent[];
  end(): FramedEvent[];
}

/** Framings with a synchronous framer (read without an async generator per layer). */
const EVENT_FRAMERS: Record<string, () => EventFramer> = {
  sse: () => new SseFramer(),
};

/** A synchronous framer for the framing, when it has one. */
export function eventFramer(framing: string): EventFramer | undefined {
  return EVENT_FRAMERS[framing]?.();
}

export function frameEventBatches(framing: string, source: AsyncIterable<Buffer>): AsyncIterable<FramedEvent[]> {
  const framer = FRAMERS[framing];
  if (!framer) throw new Error(`no stream framing named ${framing}`);
  return framer(source);
}

export async function* frameEvents(framing: string, source: AsyncIterable<Buffer>): AsyncIterable<FramedEvent> {
  for await (const batch of frameEventBatches(framing, source)) yield* batch;
}

registerFraming('ndjson', parseNdjson);
registerFraming('aws-eventstream', parseAwsEventStream);
