// The Responses API streamed, translated through chat (deepseek provider at the fake), store:
// false: OpenAI chunks read back into stream parts and written as Responses events.
import { ANSWER_TEXT, readOpenAISse } from '../lib/payloads.mjs';
import { OPENAI_HEADERS, openaiChatBody } from '../lib/requests.mjs';
import { readResponsesSse } from '../lib/api-answers.mjs';
import { DEEPSEEK_HEADERS, responsesBody } from './responses-chat.mjs';

export default {
  name: 'responses-chat-stream',
  description: 'POST /v1/responses with stream: true, store: false (deepseek provider: chat chunks written as Responses events)',
  stream: true,
  setup({ fakeUrl }) {
    return {
      gatewayConfig: { providers: { deepseek: { baseUrl: `${fakeUrl}/v1` } } },
      request: { method: 'POST', path: '/v1/responses', headers: DEEPSEEK_HEADERS, body: responsesBody({ stream: true }) },
      upstreamRequest: { method: 'POST', path: '/v1/chat/completions', headers: OPENAI_HEADERS, body: openaiChatBody({ stream: true }) },
      expect({ status, body }, target) {
        if (status !== 200) return `status ${status}: ${body.toString('utf8', 0, 300)}`;
        if (target !== 'gateway') {
          const { content, done } = readOpenAISse(body.toString('utf8'));
          return (content === ANSWER_TEXT && done) || `unexpected stream: ${JSON.stringify(content)}`;
        }
        const { content, final } = readResponsesSse(body.toString('utf8'));
        if (content !== ANSWER_TEXT) return `unexpected content: ${JSON.stringify(content)}`;
        return final?.status === 'completed' || 'no response.completed';
      },
    };
  },
};
