import { describe, expect, it } from 'vitest';
import type { StreamPart } from '../../../../src/contract/stream-parts.js';
import { readRound, type RoundSink } from '../../../../src/features/tool-loop/round-stream.js';

type Json = Record<string, any>;

/** A sink that writes down what it was told, in order. */
function recorder(): RoundSink & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    start: (kind) => log.push(`start ${kind}`),
    delta: (text) => log.push(`delta ${text}`),
    end: (signature) => log.push(signature ? `end ${signature}` : 'end'),
    whole: (item) => log.push(`whole ${item.encrypted_content}`),
  };
}

async function* parts(list: StreamPart[]): AsyncGenerator<StreamPart> {
  yield* list;
}

const event = (data: Json): StreamPart => ({ type: 'event', event: data.type, data: JSON.stringify(data) });

describe('readRound', () => {
  it('translated parts: reasoning closed by its signed block, a redacted block whole, text, a tool call; the chat answer keeps the blocks and the call', async () => {
    const sink = recorder();
    const chat: any = await readRound(
      parts([
        { type: 'meta', id: 'chatcmpl-1', model: 'm', created: 1 },
        { type: 'reasoning', choice: 0, text: 'Think ' },
        { type: 'reasoning', choice: 0, text: 'hard.' },
        { type: 'thinking-block', choice: 0, block: { type: 'thinking', thinking: 'Think hard.', signature: 'sig' } },
        { type: 'thinking-block', choice: 0, block: { type: 'redacted_thinking', data: 'opaque' } },
        { type: 'text', choice: 0, text: 'Let me ' },
        { type: 'text', choice: 0, text: 'check.' },
        { type: 'tool-call-start', choice: 0, index: 0, id: 'call_1', name: 'srv__add', signature: 'g-sig' },
        { type: 'tool-call-args', choice: 0, index: 0, args: '{"a":1}' },
        { type: 'finish', choice: 0, reason: 'tool_calls' },
        { type: 'usage', usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } },
        { type: 'done' },
      ]),
      'chat',
      { model: 'm' },
      sink,
    );
    expect(sink.log).toEqual(['start reasoning', 'delta Think ', 'delta hard.', 'end sig', 'whole opaque', 'start message', 'delta Let me ', 'delta check.', 'end']);
    const message = chat.choices[0].message;
    expect(message).toMatchObject({ content: 'Let me check.', reasoning_content: 'Think hard.' });
    expect(message.thinking_blocks).toEqual([
      { type: 'thinking', thinking: 'Think hard.', signature: 'sig' },
      { type: 'redacted_thinking', data: 'opaque' },
    ]);
    expect(message.tool_calls).toEqual([
      { id: 'call_1', type: 'function', function: { name: 'srv__add', arguments: '{"a":1}' }, extra_content: { google: { thought_signature: 'g-sig' } } },
    ]);
    expect(chat.choices[0].finish_reason).toBe('tool_calls');
    expect(chat.usage).toMatchObject({ total_tokens: 7 });
  });

  it('Anthropic events: the message rebuilt (thinking with its signature, tool_use input parsed, stop_reason and usage)', async () => {
    const sink = recorder();
    const message = await readRound(
      parts([
        event({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', content: [], usage: { input_tokens: 5, output_tokens: 1 } } }),
        event({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
        event({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hm.' } }),
        event({ type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig-1' } }),
        event({ type: 'content_block_stop', index: 0 }),
        event({ type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'srv__add', input: {} } }),
        event({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"a":' } }),
        event({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '2}' } }),
        event({ type: 'content_block_stop', index: 1 }),
        event({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9 } }),
        event({ type: 'message_stop' }),
        { type: 'done' },
      ]),
      'anthropic',
      { model: 'claude' },
      sink,
    );
    expect(sink.log).toEqual(['start reasoning', 'delta Hm.', 'end sig-1']);
    expect(message).toMatchObject({
      id: 'msg_1',
      stop_reason: 'tool_use',
      usage: { input_tokens: 5, output_tokens: 9 },
      content: [
        { type: 'thinking', thinking: 'Hm.', signature: 'sig-1' },
        { type: 'tool_use', id: 'toolu_1', name: 'srv__add', input: { a: 2 } },
      ],
    });
  });

  it('a stream cut before the upstream said it was whole, or an error event: a provider_error (the open item is closed first)', async () => {
    const sink = recorder();
    await expect(readRound(parts([{ type: 'text', choice: 0, text: 'Half' }]), 'responses', { model: 'm' }, sink)).rejects.toMatchObject({ code: 'provider_error' });
    expect(sink.log).toEqual(['start message', 'delta Half', 'end']);
    await expect(
      readRound(parts([event({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }), { type: 'done' }]), 'anthropic', { model: 'm' }, recorder()),
    ).rejects.toMatchObject({ code: 'provider_error', message: 'Overloaded' });
  });
});
