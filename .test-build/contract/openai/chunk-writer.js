/**
 * Turns stream parts into OpenAI SSE text (`data: <chunk>\n\n`), one of the writers of the HTTP edge.
 * Reasoning goes in `delta.reasoning_content` (text pieces) and `delta.thinking_blocks` (each
 * block whole, with its signature, once it is complete).
 * Keeps OpenAI's rules: the role comes in each choice's first delta; a tool call's first delta
 * carries id, type and name, later ones only its index and argument text; usage, when asked
 * for, comes in a last chunk with no choices.
 */
export class OpenAIChunkWriter {
    format;
    includeUsage;
    id = '';
    model = '';
    created = 0;
    roleSent = new Set();
    usage;
    object;
    constructor(format, includeUsage) {
        this.format = format;
        this.includeUsage = includeUsage;
        this.object = format === 'chat' ? 'chat.completion.chunk' : 'text_completion';
    }
    /** Usage seen so far (from translated parts); undefined for passthrough chunks. */
    get lastUsage() {
        return this.usage;
    }
    write(part) {
        switch (part.type) {
            case 'chunk':
                return `data: ${part.data}\n\n`;
            case 'event':
                return part.event ? `event: ${part.event}\ndata: ${part.data}\n\n` : `data: ${part.data}\n\n`;
            case 'meta':
                this.id = part.id;
                this.model = part.model;
                this.created = part.created;
                return '';
            case 'text':
                if (this.format === 'text')
                    return this.emit([{ text: part.text, index: part.choice, logprobs: null, finish_reason: null }]);
                return this.emit([{ index: part.choice, delta: this.withRole(part.choice, { content: part.text }), logprobs: null, finish_reason: null }]);
            case 'reasoning':
                if (this.format === 'text')
                    return '';
                return this.emit([{ index: part.choice, delta: this.withRole(part.choice, { reasoning_content: part.text }), logprobs: null, finish_reason: null }]);
            case 'thinking-block':
                if (this.format === 'text')
                    return '';
                return this.emit([{ index: part.choice, delta: this.withRole(part.choice, { thinking_blocks: [part.block] }), logprobs: null, finish_reason: null }]);
            case 'tool-call-start':
                return this.emit([
                    {
                        index: part.choice,
                        delta: this.withRole(part.choice, {
                            content: null,
                            tool_calls: [toolCallDelta(part)],
                        }),
                        logprobs: null,
                        finish_reason: null,
                    },
                ]);
            case 'tool-call-args':
                return this.emit([
                    { index: part.choice, delta: { tool_calls: [{ index: part.index, function: { arguments: part.args } }] }, logprobs: null, finish_reason: null },
                ]);
            case 'finish':
                if (this.format === 'text')
                    return this.emit([{ text: '', index: part.choice, logprobs: null, finish_reason: part.reason }]);
                return this.emit([{ index: part.choice, delta: this.withRole(part.choice, {}), logprobs: null, finish_reason: part.reason }]);
            case 'usage':
                this.usage = part.usage;
                return '';
            case 'done':
                return this.done();
        }
    }
    /** The event that ends a failed stream: the whole error body, and no [DONE] after it. */
    failure(body) {
        return sseErrorEvent(body);
    }
    done() {
        let out = '';
        if (this.includeUsage && this.usage)
            out += this.emit([], this.usage);
        return `${out}data: [DONE]\n\n`;
    }
    withRole(choice, delta) {
        if (this.roleSent.has(choice))
            return delta;
        this.roleSent.add(choice);
        return { role: 'assistant', ...delta };
    }
    emit(choices, usage) {
        const chunk = { id: this.id, object: this.object, created: this.created, model: this.model, choices };
        if (this.format === 'chat')
            chunk.system_fingerprint = null;
        if (usage)
            chunk.usage = usage;
        return `data: ${JSON.stringify(chunk)}\n\n`;
    }
}
/** The first delta of a tool call; a reasoning signature riding on it goes where Google's OpenAI-compatible API puts it. */
function toolCallDelta(part) {
    const call = { index: part.index, id: part.id, type: 'function', function: { name: part.name, arguments: '' } };
    if (part.signature)
        call.extra_content = { google: { thought_signature: part.signature } };
    return call;
}
/** The event that ends a failed stream: the whole error body, and no [DONE] after it. */
export function sseErrorEvent(body) {
    return `data: ${JSON.stringify(body)}\n\n`;
}
//# sourceMappingURL=chunk-writer.js.map