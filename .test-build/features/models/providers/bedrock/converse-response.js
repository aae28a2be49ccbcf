import { chatCompletion, newCompletionId } from '../shared/openai-answer.js';
import { finishReason, usageFrom } from './finish.js';
/** A reasoningContent block -> a thinking block (text with its signature, or the redacted bytes). */
export function thinkingBlockOf(reasoning) {
    if (reasoning?.reasoningText) {
        const text = String(reasoning.reasoningText.text ?? '');
        const signature = reasoning.reasoningText.signature;
        return typeof signature === 'string' ? { type: 'thinking', thinking: text, signature } : { type: 'thinking', thinking: text };
    }
    if (typeof reasoning?.redactedContent === 'string')
        return { type: 'redacted_thinking', data: reasoning.redactedContent };
    return undefined;
}
/**
 * A Converse answer -> an OpenAI chat.completion (Bedrock gives no id: one is made).
 * reasoningContent blocks become `reasoning_content` and `thinking_blocks`.
 */
export function fromConverse(body, call) {
    const blocks = [];
    const answer = {
        id: newCompletionId(),
        model: String(call.body?.model ?? ''),
        text: '',
        toolCalls: [],
        finishReason: finishReason(body?.stopReason),
        usage: usageFrom(body?.usage),
        reasoning: '',
        thinkingBlocks: blocks,
    };
    const content = body?.output?.message?.content;
    for (const block of Array.isArray(content) ? content : []) {
        if (typeof block?.text === 'string')
            answer.text += block.text;
        else if (block?.reasoningContent) {
            const thinking = thinkingBlockOf(block.reasoningContent);
            if (!thinking)
                continue;
            if (thinking.type === 'thinking')
                answer.reasoning += thinking.thinking;
            blocks.push(thinking);
        }
        else if (block?.toolUse) {
            answer.toolCalls.push({ id: String(block.toolUse.toolUseId), name: String(block.toolUse.name), arguments: JSON.stringify(block.toolUse.input ?? {}) });
        }
    }
    return chatCompletion(answer);
}
//# sourceMappingURL=converse-response.js.map