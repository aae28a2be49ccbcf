// Fallback under failure: the first target answers 503 (the fake's /status/503 route), the second
// answers. Every request makes two upstream calls; direct and proxy rows are not run.
import { ANSWER_TEXT } from '../lib/payloads.mjs';
import { OPENAI_HEADERS, openaiChatBody } from '../lib/requests.mjs';

const CONFIG = JSON.stringify({
  strategy: { mode: 'fallback' },
  targets: [{ provider: 'openai' }, { provider: 'groq', api_key: 'gsk-bench-0123456789abcdef' }],
});

export default {
  name: 'routing-failover',
  description: 'two-target fallback config; the first target answers 503, the second answers',
  setup({ fakeUrl }) {
    return {
      gatewayConfig: { providers: { openai: { baseUrl: `${fakeUrl}/status/503/v1` }, groq: { baseUrl: `${fakeUrl}/v1` } } },
      request: {
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { ...OPENAI_HEADERS, 'x-gateway-config': CONFIG },
        body: openaiChatBody(),
      },
      upstreamRequest: null,
      expect({ status, headers, body }) {
        if (status !== 200) return `status ${status}: ${body.toString('utf8', 0, 300)}`;
        if (headers['x-gateway-target-index'] !== '1') return `answered by target ${headers['x-gateway-target-index']}`;
        const content = JSON.parse(body.toString('utf8')).choices?.[0]?.message?.content;
        return content === ANSWER_TEXT || `unexpected content: ${JSON.stringify(content)}`;
      },
    };
  },
};
