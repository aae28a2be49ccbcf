// Answers from the memory cache: every request is identical, so after the first one every answer
// is a cache HIT and nothing goes upstream. Compare the gateway row with openai-chat's.
import { ANSWER_TEXT } from '../lib/payloads.mjs';
import { OPENAI_HEADERS, openaiChatBody } from '../lib/requests.mjs';

const CONFIG = JSON.stringify({ provider: 'openai', cache: { mode: 'simple', max_age: 3600 } });

export default {
  name: 'routing-cache-hit',
  description: 'POST /v1/chat/completions with cache: simple; identical requests answered from the cache',
  setup() {
    return {
      gatewayConfig: {},
      request: {
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { ...OPENAI_HEADERS, 'x-gateway-config': CONFIG },
        body: openaiChatBody(),
      },
      expect({ status, headers, body }) {
        if (status !== 200) return `status ${status}: ${body.toString('utf8', 0, 300)}`;
        if (headers['x-gateway-cache-status'] === undefined) return true; // direct / proxy rows
        if (headers['x-gateway-cache-status'] !== 'HIT') return `cache status ${headers['x-gateway-cache-status']}`;
        const content = JSON.parse(body.toString('utf8')).choices?.[0]?.message?.content;
        return content === ANSWER_TEXT || `unexpected content: ${JSON.stringify(content)}`;
      },
    };
  },
};
