/** The open thinking block of one candidate (kept across the chunks of a stream). */
export class ThoughtState {
    text = '';
    open = false;
    /** The events of one part. */
    read(part, out) {
        if (!part || typeof part !== 'object')
            return;
        const signature = typeof part.thoughtSignature === 'string' && part.thoughtSignature !== '' ? part.thoughtSignature : undefined;
        if (part.thought === true) {
            const text = typeof part.text === 'string' ? part.text : '';
            if (text !== '')
                out.push({ kind: 'reasoning', text });
            this.text += text;
            this.open = true;
            if (signature)
                this.close(out, signature);
            return;
        }
        if (typeof part.text === 'string') {
            this.close(out);
            if (part.text !== '')
                out.push({ kind: 'text', text: part.text });
            if (signature)
                out.push({ kind: 'block', block: { type: 'thinking', thinking: '', signature } });
            return;
        }
        if (part.functionCall && typeof part.functionCall.name === 'string') {
            this.close(out);
            const call = { kind: 'call', name: part.functionCall.name, args: JSON.stringify(part.functionCall.args ?? {}) };
            if (typeof part.functionCall.id === 'string' && part.functionCall.id !== '')
                call.id = part.functionCall.id;
            if (signature)
                call.signature = signature;
            out.push(call);
        }
    }
    /** Closes the open block (the candidate ended, or another kind of part came). */
    close(out, signature) {
        if (!this.open)
            return;
        const block = signature ? { type: 'thinking', thinking: this.text, signature } : { type: 'thinking', thinking: this.text };
        this.text = '';
        this.open = false;
        out.push({ kind: 'block', block });
    }
}
/** Every event of a whole candidate. */
export function candidateEvents(candidate) {
    const out = [];
    const state = new ThoughtState();
    const parts = candidate?.content?.parts;
    if (Array.isArray(parts))
        for (const part of parts)
            state.read(part, out);
    state.close(out);
    return out;
}
/**
 * The model turn's parts for an assistant message sent back: thought parts (with their
 * signatures) first, then the text, then the function calls. A text-part signature (a
 * thinking block with no text) goes back on the last text part.
 */
export function modelTurnParts(blocks, texts, calls) {
    const parts = [];
    let textSignature;
    const onCalls = new Set(calls.map((c) => c.thoughtSignature).filter((s) => typeof s === 'string'));
    for (const block of blocks) {
        if (block.type !== 'thinking')
            continue; // Gemini has no redacted thinking
        if (block.thinking === '') {
            // the same signature riding on a call goes back on that call only
            if (block.signature && !onCalls.has(block.signature))
                textSignature = block.signature;
            continue;
        }
        parts.push(block.signature ? { text: block.thinking, thought: true, thoughtSignature: block.signature } : { text: block.thinking, thought: true });
    }
    const textParts = texts.filter((t) => t !== '').map((text) => ({ text }));
    if (textSignature) {
        if (textParts.length > 0)
            textParts[textParts.length - 1].thoughtSignature = textSignature;
        else if (calls.length === 0)
            textParts.push({ text: '', thoughtSignature: textSignature });
    }
    return [...parts, ...textParts, ...calls];
}
//# sourceMappingURL=thoughts.js.map