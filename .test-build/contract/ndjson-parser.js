import { StringDecoder } from 'node:string_decoder';
/** Newline-delimited JSON streams: one event per non-empty line. */
export async function* parseNdjson(source) {
    const decoder = new StringDecoder('utf8');
    let buffer = '';
    for await (const chunk of source) {
        buffer += typeof chunk === 'string' ? chunk : decoder.write(chunk);
        let nl = buffer.indexOf('\n');
        while (nl >= 0) {
            const line = buffer.slice(0, nl).trim();
            buffer = buffer.slice(nl + 1);
            if (line)
                yield { data: line };
            nl = buffer.indexOf('\n');
        }
    }
    const rest = (buffer + decoder.end()).trim();
    if (rest)
        yield { data: rest };
}
//# sourceMappingURL=ndjson-parser.js.map