// Anthropic's Messages API streamed on the openai provider: OpenAI chunks read back into stream
// parts and written as Anthropic events. direct/proxy rows stream the equivalent chat request.
import { ANSWER_TEXT, readOpenAISse } from '../lib/payloads.mjs';
import { OPENAI_HEADERS, openaiChatBody } from '../lib/requests.mjs';
import { readAnthropicSse } from '../lib/api-answers.mjs';
import { messagesBody } from './messages-openai.mjs';

export default {
  name: 'messages-openai-stream',
  description: 'POST /v1/messages with stream: true (openai provider: chat chunks written as Anthropic events)',
  stream: true,
  setup() {
    return {
      gatewayConfig: {},
      request: { method: 'POST', path: '/v1/messages', headers: { ...OPENAI_HEADERS, 'anthropic-version': '2023-06-01' }, body: messagesBody({ stream: true }) },
      upstreamRequest: { method: 'POST', path: '/v1/chat/completions', headers: OPENAI_HEADERS, body: openaiChatBody({ stream: true }) },
      expect({ status, body }, target) {
        if (status !== 200) return `status ${status}: ${body.toString('utf8', 0, 300)}`;
        const { content, done } = target === 'gateway' ? readAnthropicSse(body.toString('utf8')) : readOpenAISse(body.toString('utf8'));
        if (content !== ANSWER_TEXT) return `unexpected content: ${JSON.stringify(content)}`;
        return done || 'the stream did not end';
      },
    };
  },
};
