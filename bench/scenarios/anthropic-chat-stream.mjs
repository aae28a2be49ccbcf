// Anthropic Messages streamed, translated by the gateway: the OpenAI request becomes a Messages
// request, and each Anthropic SSE event becomes OpenAI chunks (20 text deltas). direct/proxy rows
// send the equivalent Messages request to the fake and relay its events untranslated, so the
// gateway row's extra cost is routing plus translation both ways.
import { ANSWER_TEXT, readOpenAISse } from '../lib/payloads.mjs';
import { openaiChatBody } from '../lib/requests.mjs';

const KEY = 'sk-ant-bench-0123456789abcdefghijklmnop';
const MODEL = 'claude-sonnet-4-20250514';

export default {
  name: 'anthropic-chat-stream',
  description: 'POST /v1/chat/completions with stream: true (anthropic provider, request and Messages SSE translated)',
  stream: true,
  setup({ fakeUrl }) {
    const openai = openaiChatBody({ stream: true, model: MODEL });
    return {
      gatewayConfig: { providers: { anthropic: { baseUrl: fakeUrl } } },
      request: {
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}`, 'x-gateway-provider': 'anthropic' },
        body: openai,
      },
      upstreamRequest: {
        method: 'POST',
        path: '/v1/messages',
        headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
        body: {
          model: MODEL,
          system: openai.messages[0].content,
          messages: [openai.messages[1]],
          max_tokens: openai.max_tokens,
          temperature: openai.temperature,
          stream: true,
        },
      },
      expect({ status, body }, target) {
        if (status !== 200) return `status ${status}: ${body.toString('utf8', 0, 300)}`;
        const text = body.toString('utf8');
        if (target !== 'gateway') return text.includes('event: message_stop') || 'no message_stop in the Anthropic stream';
        const { content, done } = readOpenAISse(text);
        if (content !== ANSWER_TEXT) return `unexpected content: ${JSON.stringify(content)}`;
        return done || 'no [DONE] at the end';
      },
    };
  },
};
