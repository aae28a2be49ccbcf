import { parseSseBatches } from './sse/sse-parser.js';
import { parseNdjson } from './ndjson-parser.js';
import { parseAwsEventStream } from './aws-eventstream/decoder.js';
/** Upstream stream framings, parsed centrally; providers name one in their stream adapter. */
const FRAMERS = {
    sse: parseSseBatches,
};
/** Registers a framing that yields one event at a time. */
export function registerFraming(name, framer) {
    FRAMERS[name] = async function* (source) {
        for await (const event of framer(source))
            yield [event];
    };
}
export function frameEventBatches(framing, source) {
    const framer = FRAMERS[framing];
    if (!framer)
        throw new Error(`no stream framing named ${framing}`);
    return framer(source);
}
export async function* frameEvents(framing, source) {
    for await (const batch of frameEventBatches(framing, source))
        yield* batch;
}
registerFraming('ndjson', parseNdjson);
registerFraming('aws-eventstream', parseAwsEventStream);
//# sourceMappingURL=framing.js.map