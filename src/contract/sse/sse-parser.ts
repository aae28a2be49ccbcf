import { StringDecoder } from 'node:string_decoder';

/** One server-sent event. `data` joins multi-line data with "\n". */
export interface SseEvent {
  event?: string;
  data: string;
  id?: string;
}

const NO_EVENTS: SseEvent[] = [];

/**
 * The one place SSE text is parsed: splits a byte stream into events as bytes arrive (events
 * may span chunks; a UTF-8 character may be split across chunks). `push` gives the whole
 * events of each arriving chunk together, so that consumers handle a chunk's events in one go;
 * `end` gives what the stream's end completes. Synchronous: a reader that has the chunks pays
 * no generator per layer.
 */
export class SseFramer {
  private readonly decoder = new StringDecoder('utf8');
  private buffer = '';

  push(chunk: Buffer | string): SseEvent[] {
    const buffer = (this.buffer += typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
    let events: SseEvent[] | undefined;
    let from = 0;
    for (;;) {
      const at = findBoundary(buffer, from);
      if (at < 0) break;
      const event = eventAt(buffer, from, at);
      if (event) (events ??= []).push(event);
      from = boundaryEnd;
    }
    if (from > 0) this.buffer = buffer.slice(from);
    return events ?? NO_EVENTS;
  }

  /**
   * At the end of the stream, a last event whose lines are complete but which lacks its blank
   * line is still an event (some servers end with "data: [DONE]\n"); a cut-off line is dropped.
   */
  end(): SseEvent[] {
    const buffer = (this.buffer += this.decoder.end());
    this.buffer = '';
    if (!buffer.endsWith('\n')) return NO_EVENTS;
    const event = parseBlock(buffer);
    return event ? [event] : NO_EVENTS;
  }
}

/** The events of an SSE byte stream, those of each arriving chunk together. */
export async function* parseSseBatches(source: AsyncIterable<Buffer | string>): AsyncGenerator<SseEvent[]> {
  const framer = new SseFramer();
  for await (const chunk of source) {
    const events = framer.push(chunk);
    if (events.length) yield events;
  }
  const last = framer.end();
  if (last.length) yield last;
}

/** The same events one at a time. */
export async function* parseSse(source: AsyncIterable<Buffer | string>): AsyncGenerator<SseEvent> {
  for await (const batch of parseSseBatches(source)) yield* batch;
}

/** Where the event after the last boundary found begins (set by findBoundary). */
let boundaryEnd = 0;

/**
 * The next blank line at or after `from`: a line end (LF or CRLF) followed by another, in any
 * mix. Returns where the event's text ends (-1: no whole event yet); `boundaryEnd` is then
 * where the next event begins.
 */
function findBoundary(text: string, from: number): number {
  let p = text.indexOf('\n', from);
  while (p >= 0) {
    const next = p + 1;
    let end = -1;
    if (text.charCodeAt(next) === 10) end = next + 1;
    else if (text.charCodeAt(next) === 13 && text.charCodeAt(next + 1) === 10) end = next + 2;
    if (end > 0) {
      boundaryEnd = end;
      return p > from && text.charCodeAt(p - 1) === 13 ? p - 1 : p;
    }
    p = text.indexOf('\n', next);
  }
  return -1;
}

const DATA_PREFIX = 'data: ';

const EVENT_PREFIX = 'event: ';

/**
 * The event of text[from, at). The common shapes are read straight from the text: one
 * `data: ...` line (OpenAI), and `event: <name>` followed by one `data: ...` line (Anthropic);
 * anything else (CRLF, more lines, comments, ids) goes through parseBlock.
 */
function eventAt(text: string, from: number, at: number): SseEvent | undefined {
  if (text.charCodeAt(at - 1) !== 13) {
    if (text.startsWith(DATA_PREFIX, from)) {
      const newline = text.indexOf('\n', from);
      if (newline < 0 || newline >= at) return { event: undefined, data: text.slice(from + DATA_PREFIX.length, at), id: undefined };
    } else if (text.startsWith(EVENT_PREFIX, from)) {
      const newline = text.indexOf('\n', from);
      const dataAt = newline + 1;
      if (newline > from && newline < at && text.charCodeAt(newline - 1) !== 13 && text.startsWith(DATA_PREFIX, dataAt)) {
        const second = text.indexOf('\n', dataAt);
        if (second < 0 || second >= at) return { event: text.slice(from + EVENT_PREFIX.length, newline), data: text.slice(dataAt + DATA_PREFIX.length, at), id: undefined };
      }
    }
  }
  return parseBlock(text.slice(from, at));
}

function parseBlock(block: string): SseEvent | undefined {
  // The common case: one `data: ...` line.
  if (block.startsWith('data: ') && block.indexOf('\n') < 0 && !block.endsWith('\r')) return { event: undefined, data: block.slice(6), id: undefined };
  let data: string | undefined;
  let event: string | undefined;
  let id: string | undefined;
  let start = 0;
  while (start <= block.length) {
    let end = block.indexOf('\n', start);
    if (end < 0) end = block.length;
    let line = block.slice(start, end);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    start = end + 1;
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data = data === undefined ? value : `${data}\n${value}`;
    else if (field === 'event') event = value;
    else if (field === 'id') id = value;
  }
  if (data === undefined && event === undefined) return undefined;
  return { event, data: data ?? '', id };
}
