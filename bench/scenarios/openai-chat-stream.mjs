// OpenAI chat completion streamed (SSE): 20 content chunks relayed by the gateway.
import { ANSWER_TEXT, readOpenAISse } from '../lib/payloads.mjs';
import { OPENAI_HEADERS, openaiChatBody } from '../lib/requests.mjs';

export default {
  name: 'openai-chat-stream',
  description: 'POST /v1/chat/completions with stream: true (openai provider, SSE relayed)',
  stream: true,
  setup() {
    return {
      gatewayConfig: {},
      request: { method: 'POST', path: '/v1/chat/completions', headers: OPENAI_HEADERS, body: openaiChatBody({ stream: true }) },
      expect({ status, body }) {
        if (status !== 200) return `status ${status}: ${body.toString('utf8', 0, 300)}`;
        const { content, done } = readOpenAISse(body.toString('utf8'));
        if (content !== ANSWER_TEXT) return `unexpected content: ${JSON.stringify(content)}`;
        return done || 'no [DONE] at the end';
      },
    };
  },
};
