// openai-chat with traces exported (observability.otlp.endpoint set, http/protobuf, every request
// sampled): compare its gateway row with openai-chat's for the cost of tracing (cpu us/req).
// The fake upstream is also the OTLP receiver (POST /v1/traces, read and dropped).
import { ANSWER_TEXT } from '../lib/payloads.mjs';
import { OPENAI_HEADERS, openaiChatBody } from '../lib/requests.mjs';

export default {
  name: 'openai-chat-traced',
  description: 'POST /v1/chat/completions like openai-chat, with OpenTelemetry traces exported over OTLP/HTTP (protobuf)',
  upstream: {
    'POST /v1/traces': {
      body: 'drain',
      handler(_req, res) {
        res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': '0' });
        res.end();
      },
    },
  },
  setup({ fakeUrl }) {
    return {
      gatewayConfig: { observability: { otlp: { endpoint: fakeUrl, protocol: 'http/protobuf', sampleRatio: Number(process.env.BENCH_TRACE_RATIO ?? 1) } } },
      request: {
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { ...OPENAI_HEADERS, traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
        body: openaiChatBody(),
      },
      expect({ status, body }) {
        if (status !== 200) return `status ${status}: ${body.toString('utf8', 0, 300)}`;
        const content = JSON.parse(body.toString('utf8')).choices?.[0]?.message?.content;
        return content === ANSWER_TEXT || `unexpected content: ${JSON.stringify(content)}`;
      },
    };
  },
};
