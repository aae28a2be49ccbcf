// One process holding 5,000 open streams: the fake writes each OpenAI event 500 ms apart (a
// stream stays open about 11 s), 5,000 at once. What counts: no error, and the gateway's RSS
// while they are open (the `open`, `open RSS MB` and `KB/open` columns: RSS halfway through the
// row, minus the RSS at rest, per stream open then).
import openaiChatStream from './openai-chat-stream.mjs';
import { OPENAI_HEADERS, openaiChatBody } from '../lib/requests.mjs';

const EVENT_MS = 500;

export default {
  name: 'streams-open-5000',
  description: `5,000 streams open at once (POST /v1/chat/completions, stream: true, events ${EVENT_MS} ms apart, passed through)`,
  stream: true,
  concurrency: [5000],
  // One slice per target (--slices wins): its streams start spread over 10 s (as callers arrive,
  // not 5,000 connections in one instant), all 5,000 open from then on; RSS read halfway (15 s).
  slices: 1,
  seconds: 30,
  warmup: 5,
  staggerMs: 10_000,
  setup({ fakeUrl }) {
    const base = openaiChatStream.setup({ fakeUrl });
    return {
      ...base,
      gatewayConfig: { providers: { openai: { baseUrl: `${fakeUrl}/paced/${EVENT_MS}/v1`, connections: 6000 } } },
      upstreamRequest: { method: 'POST', path: `/paced/${EVENT_MS}/v1/chat/completions`, headers: OPENAI_HEADERS, body: openaiChatBody({ stream: true }) },
    };
  },
};
