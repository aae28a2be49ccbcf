const REASONING_KEY = Buffer.from('"reasoning"');
/** True when answer bytes hold a `reasoning` field to rename (checked before parsing anything). */
export function mentionsReasoning(raw) {
    return typeof raw === 'string' ? raw.includes('"reasoning"') : raw.includes(REASONING_KEY);
}
/** A chat request with the gateway-only fields of assistant messages removed; undefined when nothing had to go. */
export function upstreamChatBody(body, dialect) {
    const messages = body?.messages;
    if (!Array.isArray(messages))
        return undefined;
    const drop = (m) => m !== null && typeof m === 'object' && ('thinking_blocks' in m || (!dialect.takesReasoningBack && 'reasoning_content' in m));
    if (!messages.some(drop))
        return undefined;
    return {
        ...body,
        messages: messages.map((m) => {
            if (!drop(m))
                return m;
            const { thinking_blocks: _blocks, ...rest } = m;
            if (!dialect.takesReasoningBack)
                delete rest.reasoning_content;
            return rest;
        }),
    };
}
/** OpenRouter's reasoning_details -> thinking blocks (text with a signature; encrypted as redacted). */
function blocksOfDetails(details) {
    if (!Array.isArray(details))
        return [];
    const out = [];
    for (const d of details) {
        if (d?.type === 'reasoning.text' && typeof d.text === 'string') {
            out.push(typeof d.signature === 'string' && d.signature !== '' ? { type: 'thinking', thinking: d.text, signature: d.signature } : { type: 'thinking', thinking: d.text });
        }
        else if (d?.type === 'reasoning.encrypted' && typeof d.data === 'string') {
            out.push({ type: 'redacted_thinking', data: d.data });
        }
    }
    return out;
}
/** Renames `reasoning` in one message or delta; returns whether it changed. */
function renameIn(holder, whole) {
    if (!holder || typeof holder !== 'object' || !('reasoning' in holder))
        return false;
    const { reasoning } = holder;
    delete holder.reasoning;
    if (typeof reasoning === 'string' && holder.reasoning_content === undefined)
        holder.reasoning_content = reasoning;
    if (whole && holder.thinking_blocks === undefined) {
        const blocks = blocksOfDetails(holder.reasoning_details);
        if (blocks.length > 0)
            holder.thinking_blocks = blocks;
    }
    return true;
}
/** A whole chat.completion with `reasoning` renamed in each choice's message. */
export function renameReasoningInAnswer(body) {
    for (const choice of Array.isArray(body?.choices) ? body.choices : [])
        renameIn(choice?.message, true);
    return body;
}
/** One chunk's JSON text with `reasoning` renamed in each delta (the text as it was when nothing changed). */
export function renameReasoningInChunk(data) {
    if (!mentionsReasoning(data))
        return data;
    let chunk;
    try {
        chunk = JSON.parse(data);
    }
    catch {
        return data;
    }
    let changed = false;
    for (const choice of Array.isArray(chunk?.choices) ? chunk.choices : [])
        changed = renameIn(choice?.delta, false) || changed;
    return changed ? JSON.stringify(chunk) : data;
}
//# sourceMappingURL=reasoning-dialect.js.map