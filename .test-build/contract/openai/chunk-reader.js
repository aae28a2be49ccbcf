const FINISH_REASONS = new Set(['stop', 'length', 'tool_calls', 'content_filter', 'function_call']);
/**
 * Reads OpenAI chat.completion.chunk JSON back into stream parts (the inverse of the chunk
 * writer), for answers that must be written in another format (Anthropic Messages, Responses)
 * while the provider streams OpenAI chunks. One reader per stream: it remembers which tool
 * calls started and whether the answer's ids were given.
 */
export class ChunkReader {
    started = false;
    tools = new Set();
    /** The parts of one chunk (its JSON text or parsed value). */
    read(chunk) {
        let data;
        if (typeof chunk === 'string') {
            try {
                data = JSON.parse(chunk);
            }
            catch {
                return [];
            }
        }
        else
            data = chunk;
        const out = [];
        if (!this.started) {
            this.started = true;
            out.push({ type: 'meta', id: String(data.id ?? ''), model: String(data.model ?? ''), created: Number(data.created ?? Math.floor(Date.now() / 1000)) });
        }
        for (const choice of Array.isArray(data.choices) ? data.choices : []) {
            const index = typeof choice?.index === 'number' ? choice.index : 0;
            const delta = choice?.delta ?? {};
            if (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '')
                out.push({ type: 'reasoning', choice: index, text: delta.reasoning_content });
            if (Array.isArray(delta.thinking_blocks)) {
                for (const block of delta.thinking_blocks)
                    out.push({ type: 'thinking-block', choice: index, block });
            }
            if (typeof delta.content === 'string' && delta.content !== '')
                out.push({ type: 'text', choice: index, text: delta.content });
            for (const call of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
                const n = typeof call?.index === 'number' ? call.index : 0;
                const key = `${index}:${n}`;
                if (!this.tools.has(key)) {
                    this.tools.add(key);
                    const start = { type: 'tool-call-start', choice: index, index: n, id: String(call.id ?? ''), name: String(call.function?.name ?? '') };
                    const signature = call.extra_content?.google?.thought_signature;
                    if (typeof signature === 'string' && signature !== '')
                        start.signature = signature;
                    out.push(start);
                }
                const args = call.function?.arguments;
                if (typeof args === 'string' && args !== '')
                    out.push({ type: 'tool-call-args', choice: index, index: n, args });
            }
            if (typeof choice?.finish_reason === 'string' && FINISH_REASONS.has(choice.finish_reason)) {
                out.push({ type: 'finish', choice: index, reason: choice.finish_reason });
            }
        }
        if (data.usage && typeof data.usage === 'object')
            out.push({ type: 'usage', usage: data.usage });
        return out;
    }
}
//# sourceMappingURL=chunk-reader.js.map