import { countTokensViaChat, messagesViaChat } from './messages/messages-via-chat.js';
import { responsesViaChat } from './responses/responses-via-chat.js';
/** Providers whose chat translation takes top_k. */
const TAKES_TOP_K = new Set(['google', 'vertex-ai', 'bedrock', 'anthropic']);
/** True when the adapter is a translation through chat (not the provider's own API). */
export function isTranslated(adapter) {
    return adapter?.viaChat === true;
}
/** Marks an adapter as a translation through chat; the mark survives wrappers that spread it. */
function viaChat(adapter) {
    return { ...adapter, viaChat: true };
}
export function addChatTranslations(instance) {
    const ops = instance.operations;
    const chat = ops['chat.completions'];
    if (!chat)
        return instance;
    const options = { topK: TAKES_TOP_K.has(instance.id) };
    if (!ops['messages.create'])
        ops['messages.create'] = viaChat(messagesViaChat(chat, options));
    if (!ops['messages.count_tokens'] && instance.tokenCount)
        ops['messages.count_tokens'] = viaChat(countTokensViaChat(instance.tokenCount, options));
    if (!ops['responses.create'])
        ops['responses.create'] = viaChat(responsesViaChat(chat));
    return instance;
}
//# sourceMappingURL=translations.js.map