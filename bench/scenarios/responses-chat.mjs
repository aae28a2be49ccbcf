// The Responses API translated through chat (deepseek, an OpenAI-compatible provider without the
// Responses API, pointed at the fake's chat route), store: false. direct/proxy rows send the
// equivalent chat request, so the gateway row's extra cost over openai-chat is the translation.
import { ANSWER_TEXT } from '../lib/payloads.mjs';
import { OPENAI_HEADERS, openaiChatBody } from '../lib/requests.mjs';
import { responseText } from '../lib/api-answers.mjs';

export function responsesBody({ stream = false, store = false } = {}) {
  const chat = openaiChatBody();
  return {
    model: chat.model,
    instructions: chat.messages[0].content,
    input: chat.messages[1].content,
    max_output_tokens: chat.max_tokens,
    temperature: chat.temperature,
    store,
    ...(stream ? { stream: true } : {}),
  };
}

export const DEEPSEEK_HEADERS = { ...OPENAI_HEADERS, 'x-gateway-provider': 'deepseek' };

export function responsesScenario({ name, description, store }) {
  return {
    name,
    description,
    setup({ fakeUrl }) {
      return {
        gatewayConfig: { providers: { deepseek: { baseUrl: `${fakeUrl}/v1` } } },
        request: { method: 'POST', path: '/v1/responses', headers: DEEPSEEK_HEADERS, body: responsesBody({ store }) },
        upstreamRequest: { method: 'POST', path: '/v1/chat/completions', headers: OPENAI_HEADERS, body: openaiChatBody() },
        expect({ status, body }, target) {
          if (status !== 200) return `status ${status}: ${body.toString('utf8', 0, 300)}`;
          const answer = JSON.parse(body.toString('utf8'));
          const text = target === 'gateway' ? responseText(answer) : answer.choices?.[0]?.message?.content;
          return text === ANSWER_TEXT || `unexpected answer: ${body.toString('utf8', 0, 300)}`;
        },
      };
    },
  };
}

export default responsesScenario({
  name: 'responses-chat',
  description: 'POST /v1/responses, store: false (deepseek provider: Responses request and answer translated through chat)',
  store: false,
});
