import { GatewayError } from '../../../../contract/errors/gateway-error.js';
/**
 * Tool calls of one streamed answer. Providers key their calls by their own block index
 * (which may count text blocks too); OpenAI numbers tool calls 0..n-1 in order of appearance.
 * A call whose arguments never came gets "{}" when it ends, as its whole answer would show.
 */
export class ToolCallStream {
    provider;
    choice;
    calls = new Map();
    next = 0;
    constructor(provider, choice = 0) {
        this.provider = provider;
        this.choice = choice;
    }
    get count() {
        return this.next;
    }
    has(key) {
        return this.calls.has(key);
    }
    start(key, id, name) {
        const index = this.next++;
        this.calls.set(key, { index, hasArgs: false });
        return { type: 'tool-call-start', choice: this.choice, index, id, name };
    }
    args(key, text) {
        const call = this.calls.get(key);
        if (!call)
            throw new GatewayError('provider_error', `${this.provider} streamed tool call arguments before the call started.`, { provider: this.provider });
        if (typeof text !== 'string' || text === '')
            return undefined;
        call.hasArgs = true;
        return { type: 'tool-call-args', choice: this.choice, index: call.index, args: text };
    }
    /** Ends a call; returns "{}" arguments when none were streamed. */
    stop(key) {
        const call = this.calls.get(key);
        if (!call || call.hasArgs)
            return undefined;
        call.hasArgs = true;
        return { type: 'tool-call-args', choice: this.choice, index: call.index, args: '{}' };
    }
}
//# sourceMappingURL=tool-call-stream.js.map