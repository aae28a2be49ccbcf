// OpenAI chat completion, not streamed, passed through by the openai provider.
import { ANSWER_TEXT } from '../lib/payloads.mjs';
import { OPENAI_HEADERS, openaiChatBody } from '../lib/requests.mjs';

export default {
  name: 'openai-chat',
  description: 'POST /v1/chat/completions (openai provider, JSON answer passed through)',
  setup() {
    return {
      gatewayConfig: {},
      request: { method: 'POST', path: '/v1/chat/completions', headers: OPENAI_HEADERS, body: openaiChatBody() },
      expect({ status, body }) {
        if (status !== 200) return `status ${status}: ${body.toString('utf8', 0, 300)}`;
        const content = JSON.parse(body.toString('utf8')).choices?.[0]?.message?.content;
        return content === ANSWER_TEXT || `unexpected content: ${JSON.stringify(content)}`;
      },
    };
  },
};
