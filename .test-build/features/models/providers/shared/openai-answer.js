import { randomUUID } from 'node:crypto';
export function nowSeconds() {
    return Math.floor(Date.now() / 1000);
}
/** A fresh id for answers whose provider gives none. */
export function newCompletionId(prefix = 'chatcmpl') {
    return `${prefix}-${randomUUID().replace(/-/g, '')}`;
}
/**
 * OpenAI usage from token counts; cached prompt tokens are reported under
 * prompt_tokens_details, reasoning tokens (already counted in the completion) under
 * completion_tokens_details.
 */
export function usageOf(promptTokens, completionTokens, cachedTokens = 0, reasoningTokens = 0) {
    const prompt = Number.isFinite(promptTokens) ? promptTokens : 0;
    const completion = Number.isFinite(completionTokens) ? completionTokens : 0;
    const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
    if (cachedTokens > 0)
        usage.prompt_tokens_details = { cached_tokens: cachedTokens };
    if (reasoningTokens > 0)
        usage.completion_tokens_details = { reasoning_tokens: reasoningTokens };
    return usage;
}
/** The OpenAI chat.completion object. Content is null when the answer is only tool calls. */
export function chatCompletion(answer) {
    const message = {
        role: 'assistant',
        content: answer.text === '' && answer.toolCalls.length > 0 ? null : answer.text,
        refusal: null,
    };
    const blocks = answer.thinkingBlocks ?? [];
    if (answer.reasoning || blocks.length > 0)
        message.reasoning_content = answer.reasoning ?? '';
    if (blocks.length > 0)
        message.thinking_blocks = blocks;
    if (answer.toolCalls.length > 0)
        message.tool_calls = answer.toolCalls.map(toolCallOf);
    return {
        id: answer.id,
        object: 'chat.completion',
        created: answer.created ?? nowSeconds(),
        model: answer.model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: answer.finishReason }],
        usage: answer.usage,
    };
}
/** A tool call of an answer; a reasoning signature riding on it goes where Google's OpenAI-compatible API puts it. */
export function toolCallOf(call) {
    const out = { id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } };
    if (call.signature)
        out.extra_content = { google: { thought_signature: call.signature } };
    return out;
}
//# sourceMappingURL=openai-answer.js.map