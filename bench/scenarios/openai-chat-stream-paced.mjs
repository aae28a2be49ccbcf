// Slow streams as users see them: the fake writes each OpenAI event as its own chunk, 25 ms
// apart (role chunk, 20 content chunks, finish chunk, [DONE]: about 0.55 s a stream), at 300 and
// 2,000 streams open at once. What counts: CPU per stream (cpu us/req), the first byte (ttfb
// p50/p99) against the bare proxy's, no failed stream, and RSS per open stream.
import openaiChatStream from './openai-chat-stream.mjs';
import { OPENAI_HEADERS, openaiChatBody } from '../lib/requests.mjs';

export const PACED_MS = 25;

export default {
  name: 'openai-chat-stream-paced',
  description: `POST /v1/chat/completions with stream: true, each upstream event its own write ${PACED_MS} ms apart (passed through), 300 and 2,000 open`,
  stream: true,
  concurrency: [300, 2000],
  // A stream lasts about 0.55 s: rows long enough for several streams per connection.
  seconds: 8,
  warmup: 2,
  // The streams start spread over one stream's length, as independent callers would.
  staggerMs: 23 * PACED_MS,
  setup({ fakeUrl }) {
    const base = openaiChatStream.setup({ fakeUrl });
    return {
      ...base,
      // More upstream connections than the shared pool's 256 (providers.<id>.connections): one per open stream.
      gatewayConfig: { providers: { openai: { baseUrl: `${fakeUrl}/paced/${PACED_MS}/v1`, connections: 4096 } } },
      upstreamRequest: { method: 'POST', path: `/paced/${PACED_MS}/v1/chat/completions`, headers: OPENAI_HEADERS, body: openaiChatBody({ stream: true }) },
    };
  },
};
