// The fake upstream's answers, built once: realistic OpenAI and Anthropic bodies and streams.
// Also imported by scenarios to check what came back (ANSWER_TEXT is the assistant's text).

/** The assistant text every fake answer carries, split into the pieces a stream sends. */
export const ANSWER_PIECES = [
  'Sure',
  '!',
  ' Here',
  ' is',
  ' a',
  ' short',
  ' answer',
  ' to',
  ' your',
  ' question',
  ':',
  ' the',
  ' gateway',
  ' forwards',
  ' this',
  ' stream',
  ' chunk',
  ' by',
  ' chunk',
  '.',
];
export const ANSWER_TEXT = ANSWER_PIECES.join('');

const CREATED = 1732000000;
const OPENAI_ID = 'chatcmpl-BenchA1b2C3d4E5f6G7h8I9j0';
const OPENAI_MODEL = 'gpt-4o-mini-2024-07-18';
const FINGERPRINT = 'fp_0ba0d124f1';

/** A non-streamed OpenAI chat completion (about 600 bytes). */
export const OPENAI_CHAT_JSON = Buffer.from(
  JSON.stringify({
    id: OPENAI_ID,
    object: 'chat.completion',
    created: CREATED,
    model: OPENAI_MODEL,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: ANSWER_TEXT, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: {
      prompt_tokens: 42,
      completion_tokens: 20,
      total_tokens: 62,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    },
    service_tier: 'default',
    system_fingerprint: FINGERPRINT,
  }),
);

function openaiChunk(delta, finishReason = null) {
  return {
    id: OPENAI_ID,
    object: 'chat.completion.chunk',
    created: CREATED,
    model: OPENAI_MODEL,
    service_tier: 'default',
    system_fingerprint: FINGERPRINT,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

function sse(events) {
  return Buffer.from(events.map((e) => `data: ${typeof e === 'string' ? e : JSON.stringify(e)}\n\n`).join(''));
}

const openaiEvents = [openaiChunk({ role: 'assistant', content: '', refusal: null }), ...ANSWER_PIECES.map((text) => openaiChunk({ content: text })), openaiChunk({}, 'stop')];
const openaiUsage = {
  ...openaiChunk({}),
  choices: [],
  usage: { prompt_tokens: 42, completion_tokens: 20, total_tokens: 62 },
};

/** An OpenAI chat stream: role chunk, 20 content chunks, finish chunk, [DONE]. */
export const OPENAI_CHAT_SSE = sse([...openaiEvents, '[DONE]']);
/** The same with the usage chunk (stream_options.include_usage). */
export const OPENAI_CHAT_SSE_USAGE = sse([...openaiEvents, openaiUsage, '[DONE]']);

const ANTHROPIC_ID = 'msg_01BenchXyZ0123456789abcd';
const ANTHROPIC_MODEL = 'claude-sonnet-4-20250514';

/** A non-streamed Anthropic Messages answer. */
export const ANTHROPIC_MESSAGE_JSON = Buffer.from(
  JSON.stringify({
    id: ANTHROPIC_ID,
    type: 'message',
    role: 'assistant',
    model: ANTHROPIC_MODEL,
    content: [{ type: 'text', text: ANSWER_TEXT }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 42, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 20, service_tier: 'standard' },
  }),
);

function anthropicEvent(type, data) {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/** An Anthropic Messages stream: message_start ... 20 text deltas ... message_stop. */
export const ANTHROPIC_MESSAGE_SSE = Buffer.from(
  [
    anthropicEvent('message_start', {
      message: {
        id: ANTHROPIC_ID,
        type: 'message',
        role: 'assistant',
        model: ANTHROPIC_MODEL,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 42, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1, service_tier: 'standard' },
      },
    }),
    anthropicEvent('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    anthropicEvent('ping', {}),
    ...ANSWER_PIECES.map((text) => anthropicEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text } })),
    anthropicEvent('content_block_stop', { index: 0 }),
    anthropicEvent('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 20 } }),
    anthropicEvent('message_stop', {}),
  ].join(''),
);

/** A transcription answer (response_format json). */
export const TRANSCRIPTION_JSON = Buffer.from(JSON.stringify({ text: ANSWER_TEXT, usage: { type: 'duration', seconds: 655 } }));

/** One MiB of file content, written repeatedly for downloads. */
export const FILE_BLOCK = Buffer.alloc(1024 * 1024, 'bench-file-content-0123456789abcdef\n');

/** An OpenAI-shaped error body for a given status. */
export function openaiErrorJson(status) {
  const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return Buffer.from(JSON.stringify({ error: { message: `Fake upstream answered ${status}.`, type, param: null, code: null } }));
}

/** The text of an OpenAI chat SSE body (content deltas joined), and whether it ended with [DONE]. */
export function readOpenAISse(text) {
  let content = '';
  let done = false;
  for (const line of text.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (data === '[DONE]') {
      done = true;
      continue;
    }
    const chunk = JSON.parse(data);
    content += chunk.choices?.[0]?.delta?.content ?? '';
  }
  return { content, done };
}
