// The old stream mode: the fake writes the whole OpenAI stream in one write, so the gateway reads
// it in one piece (kept as a named scenario; providers write each event as its own chunk).
import openaiChatStream from './openai-chat-stream.mjs';
import { OPENAI_HEADERS, openaiChatBody } from '../lib/requests.mjs';

export default {
  name: 'openai-chat-stream-one-write',
  description: 'POST /v1/chat/completions with stream: true, the upstream stream written in one write (passed through)',
  stream: true,
  setup({ fakeUrl }) {
    const base = openaiChatStream.setup({ fakeUrl });
    return {
      ...base,
      gatewayConfig: { providers: { openai: { baseUrl: `${fakeUrl}/one-write/v1` } } },
      upstreamRequest: { method: 'POST', path: '/one-write/v1/chat/completions', headers: OPENAI_HEADERS, body: openaiChatBody({ stream: true }) },
    };
  },
};
