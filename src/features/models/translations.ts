/**
 * The operations every chat provider gets through its chat translation when it has no API of
 * its own for them: /v1/messages (and count_tokens where the provider counts tokens) and
 * /v1/responses. Added once, when providers are created. A chat adapter that translates
 * (one that does not take OpenAI's body as it is) is wrapped first by translatedChatAdapter.
 */
import type { OperationAdapter, ProviderInstance } from './providers/provider.js';
import { countTokensViaChat, messagesViaChat } from './messages/messages-via-chat.js';
import { responsesViaChat } from './responses/responses-via-chat.js';
import { translatedChatAdapter } from './providers/shared/translated-chat.js';

/** Providers whose chat translation takes top_k. */
const TAKES_TOP_K = new Set(['google', 'vertex-ai', 'bedrock', 'anthropic']);

/** True when the adapter is a translation through chat (not the provider's own API). */
export function isTranslated(adapter: OperationAdapter | undefined): boolean {
  return adapter?.viaChat === true;
}

/** Marks an adapter as a translation through chat; the mark survives wrappers that spread it. */
function viaChat(adapter: OperationAdapter): OperationAdapter {
  return { ...adapter, viaChat: true };
}

export function addChatTranslations(instance: ProviderInstance): ProviderInstance {
  const ops = instance.operations;
  let chat = ops['chat.completions'];
  if (!chat) return instance;
  // a chat translation gets allowed_tools resolved and refuses what it cannot carry (before the operations built on it)
  if (!chat.takesOpenAIBody) ops['chat.completions'] = chat = translatedChatAdapter(chat, instance.id);
  if (instance.tokenCount && !instance.tokenCount.takesOpenAIBody) instance.tokenCount = translatedChatAdapter(instance.tokenCount, instance.id);
  const options = { topK: TAKES_TOP_K.has(instance.id) };
  if (!ops['messages.create']) ops['messages.create'] = viaChat(messagesViaChat(chat, options));
  if (!ops['messages.count_tokens'] && instance.tokenCount) ops['messages.count_tokens'] = viaChat(countTokensViaChat(instance.tokenCount, options));
  if (!ops['responses.create']) ops['responses.create'] = viaChat(responsesViaChat(chat));
  return instance;
}
