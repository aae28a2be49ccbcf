import { countTokensViaChat, messagesViaChat } from './messages/messages-via-chat.js';
import { responsesViaChat } from './responses/responses-via-chat.js';
/** Providers whose chat translation takes top_k. */
const TAKES_TOP_K = new Set(['google', 'vertex-ai', 'bedrock', 'anthropic']);
const translated = new WeakSet();
/** True when the adapter is a translation through chat (not the provider's own API). */
export function isTranslated(adapter) {
    return adapter !== undefined && translated.has(adapter);
}
export function addChatTranslations(instance) {
    const ops = instance.operations;
    const chat = ops['chat.completions'];
    if (!chat)
        return instance;
    const options = { topK: TAKES_TOP_K.has(instance.id) };
    if (!ops['messages.create'])
        translated.add((ops['messages.create'] = messagesViaChat(chat, options)));
    if (!ops['messages.count_tokens'] && instance.tokenCount)
        translated.add((ops['messages.count_tokens'] = countTokensViaChat(instance.tokenCount, options)));
    if (!ops['responses.create'])
        translated.add((ops['responses.create'] = responsesViaChat(chat)));
    return instance;
}
//# sourceMappingURL=translations.js.map