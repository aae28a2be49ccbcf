// Burst streams with keys on (as keys-chat): a gateway key, a catalogue model, budgets and the
// usage ledger; the stream is billed (the gateway asks for its usage and leaves the usage chunk
// out, as the caller did not ask for it), each upstream event its own write.
import openaiChatStream from './openai-chat-stream.mjs';
import { CATALOGUE_MODEL, keysConfig, mintKey } from '../lib/gateway-key.mjs';
import { openaiChatBody, OPENAI_HEADERS } from '../lib/requests.mjs';

export default {
  name: 'keys-chat-stream',
  description: `POST /v1/chat/completions with stream: true, a gateway key, catalogue model "${CATALOGUE_MODEL}", budgets and the usage ledger (passed through)`,
  stream: true,
  setup({ fakeUrl }) {
    const base = openaiChatStream.setup({ fakeUrl });
    const headers = { 'content-type': 'application/json' };
    return {
      ...base,
      gatewayConfig: keysConfig(`${fakeUrl}/v1`),
      request: { method: 'POST', path: '/v1/chat/completions', headers, body: openaiChatBody({ model: CATALOGUE_MODEL, stream: true }) },
      upstreamRequest: { method: 'POST', path: '/v1/chat/completions', headers: OPENAI_HEADERS, body: openaiChatBody({ stream: true }) },
      afterStart: ({ gatewayUrl }) => mintKey(gatewayUrl, headers),
    };
  },
};
