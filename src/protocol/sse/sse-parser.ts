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
  // A final event without its blank line is incomplete: it is dropped, as browsers do.
}

function findBoundary(text: string): { at: number; length: number } | undefined {
  const lf = text.indexOf('\n\n');
  const crlf = text.indexOf('\r\n\r\n');
  if (lf < 0 && crlf < 0) return undefined;
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return { at: crlf, length: 4 };
  return { at: lf, length: 2 };
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
