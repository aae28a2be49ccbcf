import { randomBytes } from 'node:crypto';
/** The id of a response's output item: from the response id and the item's position. */
export function outputItemId(prefix, responseId, index) {
    return `${prefix}_${responseId.replace(/^resp_/, '')}_${index}`;
}
/** A response id for an answer whose provider id is not one. */
export function responseIdOf(id) {
    if (id.startsWith('resp_'))
        return id;
    const tail = id.replace(/^(chatcmpl|msg)[-_]/, '').replace(/[^A-Za-z0-9_-]/g, '');
    return `resp_${tail || randomBytes(16).toString('hex')}`;
}
export function messageItem(id, text, status = 'completed') {
    return { id, type: 'message', status, role: 'assistant', content: text === '' && status === 'in_progress' ? [] : [outputText(text)] };
}
export function outputText(text) {
    return { type: 'output_text', text, annotations: [], logprobs: [] };
}
/** A reasoning item of one thinking block (or of reasoning text that came without blocks). */
export function reasoningItem(id, block) {
    if (block.type === 'redacted_thinking')
        return { id, type: 'reasoning', summary: [], encrypted_content: block.data };
    const item = { id, type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: block.thinking }] };
    if (block.signature)
        item.encrypted_content = block.signature;
    return item;
}
export function functionCallItem(id, callId, name, args, signature, status = 'completed') {
    const item = { id, type: 'function_call', status, call_id: callId, name, arguments: args };
    // a reasoning signature riding on the call (Gemini) goes back with it, as on chat tool calls
    if (signature)
        item.extra_content = { google: { thought_signature: signature } };
    return item;
}
/** OpenAI chat usage -> Responses usage. */
export function responsesUsage(usage) {
    if (!usage)
        return null;
    return {
        input_tokens: Number(usage.prompt_tokens ?? 0),
        input_tokens_details: { cached_tokens: Number(usage.prompt_tokens_details?.cached_tokens ?? 0) },
        output_tokens: Number(usage.completion_tokens ?? 0),
        output_tokens_details: { reasoning_tokens: Number(usage.completion_tokens_details?.reasoning_tokens ?? 0) },
        total_tokens: Number(usage.total_tokens ?? Number(usage.prompt_tokens ?? 0) + Number(usage.completion_tokens ?? 0)),
    };
}
/** The response status and incomplete_details a finish reason gives. */
export function completionOf(finish) {
    if (finish === 'length')
        return { status: 'incomplete', incomplete: { reason: 'max_output_tokens' } };
    if (finish === 'content_filter')
        return { status: 'incomplete', incomplete: { reason: 'content_filter' } };
    return { status: 'completed', incomplete: null };
}
/** The whole response object: the answer's state plus the settings of the request it answers. */
export function responseObject(state, request) {
    const r = request ?? {};
    return {
        id: state.id,
        object: 'response',
        created_at: state.createdAt,
        status: state.status,
        background: r.background === true,
        error: state.error ?? null,
        incomplete_details: state.incomplete ?? null,
        instructions: r.instructions ?? null,
        max_output_tokens: r.max_output_tokens ?? null,
        max_tool_calls: r.max_tool_calls ?? null,
        model: state.model,
        output: state.output,
        parallel_tool_calls: r.parallel_tool_calls ?? true,
        previous_response_id: r.previous_response_id ?? null,
        reasoning: { effort: r.reasoning?.effort ?? null, summary: r.reasoning?.summary ?? null },
        service_tier: r.service_tier ?? 'default',
        store: r.store !== false,
        temperature: r.temperature ?? 1,
        text: r.text ?? { format: { type: 'text' } },
        tool_choice: r.tool_choice ?? 'auto',
        tools: r.tools ?? [],
        top_p: r.top_p ?? 1,
        truncation: r.truncation ?? 'disabled',
        usage: state.usage,
        user: r.user ?? null,
        metadata: r.metadata ?? {},
    };
}
//# sourceMappingURL=responses-shapes.js.map