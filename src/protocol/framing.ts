import type { FramedEvent } from '../providers/provider.js';
import { parseSse } from './sse/sse-parser.js';
import { parseNdjson } from './ndjson-parser.js';
import { parseAwsEventStream } from './aws-eventstream/decoder.js';

type Framer = (source: AsyncIterable<Buffer>) => AsyncIterable<FramedEvent>;

/** Upstream stream framings, parsed centrally; providers name one in their stream adapter. */
const FRAMERS: Record<string, Framer> = {
  sse: parseSse,
  ndjson: parseNdjson,
};

export function registerFraming(name: string, framer: Framer): void {
  FRAMERS[name] = framer;
}

export function frameEvents(framing: string, source: AsyncIterable<Buffer>): AsyncIterable<FramedEvent> {
  const framer = FRAMERS[framing];
  if (!framer) throw new Error(`no stream framing named ${framing}`);
  return framer(source);
}

registerFraming('aws-eventstream', parseAwsEventStream);
