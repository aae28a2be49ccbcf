// Anthropic's Messages API on the openai provider: the Messages request becomes a chat request,
// the chat answer a Message. direct/proxy rows send the equivalent chat request to the fake, so the
// gateway row's extra cost over openai-chat is the translation both ways.
import { ANSWER_TEXT } from '../lib/payloads.mjs';
import { OPENAI_HEADERS, openaiChatBody } from '../lib/requests.mjs';

export function messagesBody({ stream = false } = {}) {
  const chat = openaiChatBody();
  return {
    model: chat.model,
    system: chat.messages[0].content,
    messages: [chat.messages[1]],
    max_tokens: chat.max_tokens,
    temperature: chat.temperature,
    ...(stream ? { stream: true } : {}),
  };
}

export default {
  name: 'messages-openai',
  description: 'POST /v1/messages (openai provider: Messages request and answer translated through chat)',
  setup() {
    return {
      gatewayConfig: {},
      request: { method: 'POST', path: '/v1/messages', headers: { ...OPENAI_HEADERS, 'anthropic-version': '2023-06-01' }, body: messagesBody() },
      upstreamRequest: { method: 'POST', path: '/v1/chat/completions', headers: OPENAI_HEADERS, body: openaiChatBody() },
      expect({ status, body }, target) {
        if (status !== 200) return `status ${status}: ${body.toString('utf8', 0, 300)}`;
        const answer = JSON.parse(body.toString('utf8'));
        const text = target === 'gateway' ? answer.content?.[0]?.text : answer.choices?.[0]?.message?.content;
        return text === ANSWER_TEXT || `unexpected answer: ${body.toString('utf8', 0, 300)}`;
      },
    };
  },
};
