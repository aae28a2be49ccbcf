// Keys on (as keys-chat) with a long conversation: a 60-message body of about 50 KB, as a chat
// client sends it late in a session. The catalogue model's name is set in the caller's bytes
// (kernel/text/json-splice.ts) rather than the whole body serialized again.
import keysChat from './keys-chat.mjs';
import { CATALOGUE_MODEL } from '../lib/gateway-key.mjs';
import { OPENAI_HEADERS } from '../lib/requests.mjs';

/** A conversation of `turns` messages, about 800 bytes each. */
function longChatBody(model, turns = 60) {
  const messages = [{ role: 'system', content: 'You are a concise assistant. Answer in one sentence.' }];
  for (let i = 1; i < turns; i++) {
    const role = i % 2 ? 'user' : 'assistant';
    messages.push({ role, content: `Turn ${i}: ${'An AI gateway routes each request to a provider, applies budgets and keeps a ledger of spend. '.repeat(8)}` });
  }
  return { model, messages, temperature: 0.2, max_tokens: 128 };
}

export default {
  name: 'keys-chat-large',
  description: `keys-chat with a 60-message (about 50 KB) conversation: catalogue model "${CATALOGUE_MODEL}" set in the caller's bytes`,
  setup({ fakeUrl }) {
    const base = keysChat.setup({ fakeUrl });
    return {
      ...base,
      request: { ...base.request, body: longChatBody(CATALOGUE_MODEL) },
      upstreamRequest: { ...base.upstreamRequest, headers: OPENAI_HEADERS, body: longChatBody('gpt-4o-mini') },
    };
  },
};
