import { StringDecoder } from 'node:string_decoder';
/**
 * The one place SSE text is parsed: splits a byte stream into events as bytes arrive
 * (events may span chunks; a UTF-8 character may be split across chunks). Yields the events
 * of each arriving chunk together, so that consumers handle a chunk's events in one go.
 */
export async function* parseSseBatches(source) {
    const decoder = new StringDecoder('utf8');
    let buffer = '';
    for await (const chunk of source) {
        buffer += typeof chunk === 'string' ? chunk : decoder.write(chunk);
        const events = [];
        let from = 0;
        for (;;) {
            const boundary = findBoundary(buffer, from);
            if (!boundary)
                break;
            const event = parseBlock(buffer.slice(from, boundary.at));
            if (event)
                events.push(event);
            from = boundary.end;
        }
        if (from > 0)
            buffer = buffer.slice(from);
        if (events.length)
            yield events;
    }
    buffer += decoder.end();
    // At the end of the stream, a last event whose lines are complete but which lacks its blank
    // line is still an event (some servers end with "data: [DONE]\n"); a cut-off line is dropped.
    if (buffer.endsWith('\n')) {
        const event = parseBlock(buffer);
        if (event)
            yield [event];
    }
}
/** The same events one at a time. */
export async function* parseSse(source) {
    for await (const batch of parseSseBatches(source))
        yield* batch;
}
/**
 * The next blank line at or after `from`: a line end (LF or CRLF) followed by another, in any
 * mix. `at` is where the event's text ends, `end` where the next event begins.
 */
function findBoundary(text, from) {
    let p = text.indexOf('\n', from);
    while (p >= 0) {
        const next = p + 1;
        let end = -1;
        if (text.charCodeAt(next) === 10)
            end = next + 1;
        else if (text.charCodeAt(next) === 13 && text.charCodeAt(next + 1) === 10)
            end = next + 2;
        if (end > 0)
            return { at: p > from && text.charCodeAt(p - 1) === 13 ? p - 1 : p, end };
        p = text.indexOf('\n', next);
    }
    return undefined;
}
function parseBlock(block) {
    // The common case: one `data: ...` line.
    if (block.startsWith('data: ') && block.indexOf('\n') < 0 && !block.endsWith('\r'))
        return { event: undefined, data: block.slice(6), id: undefined };
    let data;
    let event;
    let id;
    let start = 0;
    while (start <= block.length) {
        let end = block.indexOf('\n', start);
        if (end < 0)
            end = block.length;
        let line = block.slice(start, end);
        if (line.endsWith('\r'))
            line = line.slice(0, -1);
        start = end + 1;
        if (line === '' || line.startsWith(':'))
            continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value.startsWith(' '))
            value = value.slice(1);
        if (field === 'data')
            data = data === undefined ? value : `${data}\n${value}`;
        else if (field === 'event')
            event = value;
        else if (field === 'id')
            id = value;
    }
    if (data === undefined && event === undefined)
        return undefined;
    return { event, data: data ?? '', id };
}
//# sourceMappingURL=sse-parser.js.map