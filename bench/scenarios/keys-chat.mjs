// Non-streamed chat with keys on: a gateway key (with a money budget), a catalogue model served
// with a credential the gateway holds, a team budget and the usage ledger, against the bare
// proxy sending the plain OpenAI request (issue 22: at least 0.8 of the bare proxy at c=64).
import openaiChat from './openai-chat.mjs';
import { CATALOGUE_MODEL, keysConfig, mintKey } from '../lib/gateway-key.mjs';
import { openaiChatBody, OPENAI_HEADERS } from '../lib/requests.mjs';

export default {
  name: 'keys-chat',
  description: `POST /v1/chat/completions with a gateway key, catalogue model "${CATALOGUE_MODEL}", key and team budgets and the usage ledger`,
  setup({ fakeUrl }) {
    const base = openaiChat.setup({ fakeUrl });
    const headers = { 'content-type': 'application/json' };
    return {
      ...base,
      gatewayConfig: keysConfig(`${fakeUrl}/v1`),
      request: { method: 'POST', path: '/v1/chat/completions', headers, body: openaiChatBody({ model: CATALOGUE_MODEL }) },
      upstreamRequest: { method: 'POST', path: '/v1/chat/completions', headers: OPENAI_HEADERS, body: openaiChatBody() },
      afterStart: ({ gatewayUrl }) => mintKey(gatewayUrl, headers),
    };
  },
};
