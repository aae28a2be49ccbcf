import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { FramedEvent, ProviderCall } from '../../../../../src/features/models/providers/provider.js';
import type { StreamPart } from '../../../../../src/contract/stream-parts.js';
import { ANTHROPIC_STREAM } from '../../../../../src/features/models/providers/anthropic/stream.js';
import { CONVERSE_STREAM } from '../../../../../src/features/models/providers/bedrock/converse-stream.js';
import { COHERE_STREAM } from '../../../../../src/features/models/providers/cohere/stream.js';
import { fromAnthropicMessage } from '../../../../../src/features/models/providers/anthropic/response.js';
import { fromConverse } from '../../../../../src/features/models/providers/bedrock/converse-response.js';
import { completionsViaChat } from '../../../../../src/features/models/providers/shared/completions-via-chat.js';
import { GatewayError } from '../../../../../src/contract/errors/gateway-error.js';

const call = (body: Record<string, unknown> = { model: 'm' }) => ({ body }) as unknown as ProviderCall;

function run(
  adapter: { createMapper(c: ProviderCall): (e: FramedEvent) => StreamPart | StreamPart[] | undefined },
  events: FramedEvent[],
  body?: Record<string, unknown>,
): StreamPart[] {
  const map = adapter.createMapper(call(body));
  return events.flatMap((e) => {
    const out = map(e);
    return out === undefined ? [] : Array.isArray(out) ? out : [out];
  });
}

const sse = (data: unknown): FramedEvent => ({ data: JSON.stringify(data) });
const aws = (eventType: string, payload: unknown, messageType = 'event'): FramedEvent => ({
  headers: { ':event-type': eventType, ':message-type': messageType, ':content-type': 'application/json' },
  payload: Buffer.from(JSON.stringify(payload)),
});

describe('anthropic stream mapping', () => {
  it('gives a tool call with no streamed input "{}" arguments, numbered from 0 after a text block', () => {
    const parts = run(ANTHROPIC_STREAM, [
      sse({ type: 'message_start', message: { id: 'msg_1', model: 'claude', usage: { input_tokens: 5, output_tokens: 1 } } }),
      sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } }),
      sse({ type: 'content_block_stop', index: 0 }),
      sse({ type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_X', name: 'now', input: {} } }),
      sse({ type: 'content_block_stop', index: 1 }),
      sse({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } }),
      sse({ type: 'message_stop' }),
    ]);
    expect(parts.filter((p) => p.type !== 'meta')).toEqual([
      { type: 'text', choice: 0, text: 'Hi' },
      { type: 'tool-call-start', choice: 0, index: 0, id: 'toolu_X', name: 'now' },
      { type: 'tool-call-args', choice: 0, index: 0, args: '{}' },
      { type: 'finish', choice: 0, reason: 'tool_calls' },
      { type: 'usage', usage: { prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 } },
      { type: 'done' },
    ]);
    expect(parts[0]).toMatchObject({ type: 'meta', id: 'msg_1', model: 'claude' });
  });

  it('skips server-side tool blocks and their input', () => {
    const parts = run(ANTHROPIC_STREAM, [
      sse({ type: 'message_start', message: { id: 'msg_4', model: 'claude', usage: { input_tokens: 1 } } }),
      sse({ type: 'content_block_start', index: 0, content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} } }),
      sse({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"query": "x"}' } }),
      sse({ type: 'content_block_stop', index: 0 }),
      sse({ type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }),
      sse({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Found it.' } }),
    ]);
    expect(parts.slice(1)).toEqual([{ type: 'text', choice: 0, text: 'Found it.' }]);
  });

  it('maps thinking deltas to reasoning and the block with its signature, skips unknown events, maps refusal to content_filter', () => {
    const parts = run(ANTHROPIC_STREAM, [
      sse({ type: 'message_start', message: { id: 'msg_2', model: 'claude', usage: { input_tokens: 1 } } }),
      sse({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } }),
      sse({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } }),
      sse({ type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'abc' } }),
      sse({ type: 'content_block_stop', index: 0 }),
      sse({ type: 'some_future_event' }),
      sse({ type: 'message_delta', delta: { stop_reason: 'refusal' }, usage: { output_tokens: 2 } }),
    ]);
    expect(parts.map((p) => p.type)).toEqual(['meta', 'reasoning', 'thinking-block', 'finish', 'usage']);
    expect(parts[1]).toEqual({ type: 'reasoning', choice: 0, text: 'hmm' });
    expect(parts[2]).toEqual({ type: 'thinking-block', choice: 0, block: { type: 'thinking', thinking: 'hmm', signature: 'abc' } });
    expect(parts[3]).toEqual({ type: 'finish', choice: 0, reason: 'content_filter' });
  });

  it('reads text deltas in any spelling, escapes included; other fields or an empty text are not text', () => {
    const tricky = 'quote " backslash \\ "}} newline \n é 😀 \u2028';
    const parts = run(ANTHROPIC_STREAM, [
      sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: tricky } }),
      sse({ type: 'content_block_delta', index: 12, delta: { type: 'text_delta', text: 'a' } }),
      { data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\\u0041\\"}}"}}' },
      { data: '{ "type": "content_block_delta", "index": 0, "delta": { "type": "text_delta", "text": "spaced" } }' },
      { data: '{"delta":{"text":"reordered","type":"text_delta"},"type":"content_block_delta","index":0}' },
      sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: '' } }),
      { data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","y":"z"}}' },
      { data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"},"z":{"a":"b"}}' },
    ]);
    expect(parts).toEqual([
      { type: 'text', choice: 0, text: tricky },
      { type: 'text', choice: 0, text: 'a' },
      { type: 'text', choice: 0, text: 'A"}}' },
      { type: 'text', choice: 0, text: 'spaced' },
      { type: 'text', choice: 0, text: 'reordered' },
      { type: 'text', choice: 0, text: 'x' },
      { type: 'text', choice: 0, text: 'x' },
    ]);
    expect(() => run(ANTHROPIC_STREAM, [{ data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"cut' }])).toThrow(GatewayError);
  });

  it('reads a text delta from its string exactly as a full parse would (property)', () => {
    const spellings = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: fc.constantFrom('a', ' ', '"', '\\', '}', '\n', '\t', 'é', '😀', '\u2028', '\u0000') }));
    fc.assert(
      fc.property(spellings, fc.nat(30), (text, index) => {
        const data = JSON.stringify({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
        expect(run(ANTHROPIC_STREAM, [{ data }])).toEqual(text === '' ? [] : [{ type: 'text', choice: 0, text }]);
      }),
    );
  });

  it('refuses a text delta whose string JSON forbids (a raw control character, an unescaped quote)', () => {
    for (const inner of ['tab\there', 'cut"short']) {
      const data = `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${inner}"}}`;
      expect(() => run(ANTHROPIC_STREAM, [{ data }])).toThrow(GatewayError);
    }
  });

  it('turns error events into the mapped gateway error', () => {
    const map = ANTHROPIC_STREAM.createMapper(call());
    const err = (() => {
      try {
        map(sse({ type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }));
      } catch (e) {
        return e as GatewayError;
      }
    })();
    expect(err).toBeInstanceOf(GatewayError);
    expect(err!.code).toBe('rate_limit_exceeded');
    expect(err!.provider).toBe('anthropic');
  });

  it('maps whole answers: max_tokens -> length, thinking blocks as reasoning_content and thinking_blocks', () => {
    const answer: any = fromAnthropicMessage(
      {
        id: 'msg_3',
        model: 'claude',
        content: [
          { type: 'thinking', thinking: 'x', signature: 's' },
          { type: 'text', text: 'Cut' },
        ],
        stop_reason: 'max_tokens',
        usage: { input_tokens: 3, output_tokens: 4, cache_creation_input_tokens: 10 },
      },
      call(),
    );
    expect(answer.choices[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: 'Cut', refusal: null, reasoning_content: 'x', thinking_blocks: [{ type: 'thinking', thinking: 'x', signature: 's' }] },
      logprobs: null,
      finish_reason: 'length',
    });
    // the 10 tokens written into the cache are prompt tokens, reported apart (priced at the cache-write rate)
    expect(answer.usage).toEqual({ prompt_tokens: 13, completion_tokens: 4, total_tokens: 17, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 10 } });
  });
});

describe('bedrock stream mapping', () => {
  it('maps exceptions in the stream to gateway errors (throttling -> 429 rate limit)', () => {
    const map = CONVERSE_STREAM.createMapper(call());
    let err: GatewayError | undefined;
    try {
      map({ headers: { ':message-type': 'exception', ':exception-type': 'throttlingException' }, payload: Buffer.from('{"message":"Too many tokens"}') });
    } catch (e) {
      err = e as GatewayError;
    }
    expect(err?.code).toBe('rate_limit_exceeded');
    expect(err?.status).toBe(429);
    expect(err?.message).toBe('Too many tokens');
  });

  it('maps guardrail stops to content_filter and keeps cache tokens in prompt_tokens', () => {
    const parts = run(CONVERSE_STREAM, [
      aws('messageStart', { role: 'assistant' }),
      aws('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'No.' } }),
      aws('messageStop', { stopReason: 'guardrail_intervened' }),
      aws('metadata', { usage: { inputTokens: 4, outputTokens: 1, cacheReadInputTokens: 6 } }),
    ]);
    expect(parts.slice(1)).toEqual([
      { type: 'text', choice: 0, text: 'No.' },
      { type: 'finish', choice: 0, reason: 'content_filter' },
      { type: 'usage', usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11, prompt_tokens_details: { cached_tokens: 6 } } },
      { type: 'done' },
    ]);
  });

  it('maps whole answers with the request model and a fresh id', () => {
    const answer: any = fromConverse(
      { output: { message: { content: [{ text: 'x' }] } }, stopReason: 'max_tokens', usage: { inputTokens: 1, outputTokens: 2 } },
      call({ model: 'meta.llama3-70b-instruct-v1:0' }),
    );
    expect(answer.model).toBe('meta.llama3-70b-instruct-v1:0');
    expect(answer.id).toMatch(/^chatcmpl-[0-9a-f]{32}$/);
    expect(answer.choices[0].finish_reason).toBe('length');
  });
});

describe('cohere stream mapping', () => {
  it('numbers tool calls that come without an index in order of appearance', () => {
    const parts = run(COHERE_STREAM, [
      sse({ type: 'message-start', id: 'c1' }),
      sse({ type: 'tool-call-start', delta: { message: { tool_calls: { id: 'a_1', type: 'function', function: { name: 'a', arguments: '{"x":' } } } } }),
      sse({ type: 'tool-call-delta', delta: { message: { tool_calls: { function: { arguments: '1}' } } } } }),
      sse({ type: 'tool-call-end' }),
      sse({ type: 'tool-call-start', delta: { message: { tool_calls: { id: 'b_2', type: 'function', function: { name: 'b', arguments: '' } } } } }),
      sse({ type: 'tool-call-end' }),
      sse({ type: 'message-end', delta: { finish_reason: 'TOOL_CALL', usage: { billed_units: { input_tokens: 2, output_tokens: 3 } } } }),
    ]);
    expect(parts.slice(1)).toEqual([
      { type: 'tool-call-start', choice: 0, index: 0, id: 'a_1', name: 'a' },
      { type: 'tool-call-args', choice: 0, index: 0, args: '{"x":' },
      { type: 'tool-call-args', choice: 0, index: 0, args: '1}' },
      { type: 'tool-call-start', choice: 0, index: 1, id: 'b_2', name: 'b' },
      { type: 'tool-call-args', choice: 0, index: 1, args: '{}' },
      { type: 'finish', choice: 0, reason: 'tool_calls' },
      { type: 'usage', usage: { prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 } },
      { type: 'done' },
    ]);
  });

  it('treats MAX_TOKENS as length and an ERROR finish as a provider failure', () => {
    expect(run(COHERE_STREAM, [sse({ type: 'message-end', delta: { finish_reason: 'MAX_TOKENS' } })])[0]).toEqual({ type: 'finish', choice: 0, reason: 'length' });
    expect(() => run(COHERE_STREAM, [sse({ type: 'message-end', delta: { finish_reason: 'ERROR' } })])).toThrow(/cohere ended the answer with ERROR/);
  });
});

describe('completions via chat', () => {
  const chat = { request: () => ({ method: 'POST', url: 'u', headers: {} }), response: fromAnthropicMessage, stream: ANTHROPIC_STREAM };
  const completions = completionsViaChat(chat, 'anthropic');

  it('echoes the prompt when asked, in whole and streamed answers', () => {
    const body = { model: 'm', prompt: 'Once', echo: true };
    const whole: any = completions.response!({ id: 'msg', model: 'm', content: [{ type: 'text', text: ' upon' }], stop_reason: 'end_turn', usage: {} }, call(body));
    expect(whole.choices[0].text).toBe('Once upon');
    const parts = run(
      completions.stream!,
      [sse({ type: 'message_start', message: { id: 'msg', model: 'm', usage: {} } }), sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' upon' } })],
      body,
    );
    expect(parts.filter((p) => p.type === 'text').map((p: any) => p.text)).toEqual(['Once', ' upon']);
  });

  it('refuses several prompts and token prompts (well-formed, but not what a chat API takes) with a clear 422', () => {
    const refusal = (prompt: unknown) => {
      try {
        completions.request({ body: { model: 'm', prompt } } as unknown as ProviderCall, {} as any);
      } catch (e) {
        return e as GatewayError;
      }
    };
    const err = refusal(['a', 'b']);
    expect(err?.status).toBe(422);
    expect(err?.code).toBe('semantic_error');
    expect(err?.param).toBe('prompt');
    expect(err?.message).toMatch(/anthropic serves completions through its chat API, one prompt per request/);
    const tokens = refusal([1, 2, 3]);
    expect(tokens?.message).toMatch(/not token ids/);
    expect([tokens?.status, tokens?.code, tokens?.param]).toEqual([422, 'semantic_error', 'prompt']);
  });
});
