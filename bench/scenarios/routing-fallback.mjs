// The routing layer's cost on the happy path: a two-target fallback config (x-gateway-config
// header, compiled once and then served from the plan cache) whose first target answers.
// Compare its gateway row with openai-chat's (the same request without a routing config).
import { ANSWER_TEXT } from '../lib/payloads.mjs';
import { OPENAI_HEADERS, openaiChatBody } from '../lib/requests.mjs';

const CONFIG = JSON.stringify({
  strategy: { mode: 'fallback' },
  targets: [{ provider: 'openai' }, { provider: 'groq', api_key: 'gsk-bench-0123456789abcdef' }],
});

export default {
  name: 'routing-fallback',
  description: 'POST /v1/chat/completions with a two-target fallback config; the first target answers',
  setup({ fakeUrl }) {
    return {
      gatewayConfig: { providers: { groq: { baseUrl: `${fakeUrl}/v1` } } },
      request: {
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { ...OPENAI_HEADERS, 'x-gateway-config': CONFIG },
        body: openaiChatBody(),
      },
      expect({ status, headers, body }) {
        if (status !== 200) return `status ${status}: ${body.toString('utf8', 0, 300)}`;
        if (headers['x-gateway-target-index'] === undefined) return true; // direct / proxy rows
        if (headers['x-gateway-target-index'] !== '0') return `answered by target ${headers['x-gateway-target-index']}`;
        const content = JSON.parse(body.toString('utf8')).choices?.[0]?.message?.content;
        return content === ANSWER_TEXT || `unexpected content: ${JSON.stringify(content)}`;
      },
    };
  },
};
