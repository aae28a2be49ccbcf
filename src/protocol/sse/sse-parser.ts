import { StringDecoder } from 'node:string_decoder';

/** One server-sent event. `data` joins multi-line data with "\n". */
export interface SseEvent {
  event?: string;
  data: string;
  id?: string;
}

/**
 * The one place SSE text is parsed: splits a byte stream into events as bytes arrive
 * (events may span chunks; a UTF-8 character may be split across chunks).
 */
export async function* parseSse(source: AsyncIterable<Buffer | string>): AsyncGenerator<SseEvent> {
  const decoder = new StringDecoder('utf8');
  let buffer = '';
  for await (const chunk of source) {
    buffer += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let boundary = findBoundary(buffer);
    while (boundary) {
      const block = buffer.slice(0, boundary.at);
      buffer = buffer.slice(boundary.at + boundary.length);
      const event = parseBlock(block);
      if (event) yield event;
      boundary = findBoundary(buffer);
    }
  }
  buffer += decoder.end();
  // At the end of the stream, a last event whose lines are complete but which lacks its blank
  // line is still an event (some servers end with "data: [DONE]\n"); a cut-off line is dropped.
  if (buffer.endsWith('\n')) {
    const event = parseBlock(buffer);
    if (event) yield event;
  }
}

/** A blank line: two line ends in a row, each LF or CRLF, in any mix. */
const BLANK_LINE = /\r?\n\r?\n/;

function findBoundary(text: string): { at: number; length: number } | undefined {
  if (text.indexOf('\n') < 0) return undefined;
  const m = BLANK_LINE.exec(text);
  return m ? { at: m.index, length: m[0].length } : undefined;
}

function parseBlock(block: string): SseEvent | undefined {
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
