import { describe, expect, it } from 'vitest';
import type { FramedEvent, ProviderCall, StreamMapper } from '../../../../../src/features/models/providers/provider.js';
import type { StreamPart } from '../../../../../src/contract/stream-parts.js';
import { CONVERSE_STREAM } from '../../../../../src/features/models/providers/bedrock/converse-stream.js';
import { ANTHROPIC_STREAM } from '../../../../../src/features/models/providers/anthropic/stream.js';
import { COHERE_STREAM } from '../../../../../src/features/models/providers/cohere/stream.js';
import { fromCohereChat } from '../../../../../src/features/models/providers/cohere/response.js';
import { GatewayError } from '../../../../../src/contract/errors/gateway-error.js';

const call = { body: { model: 'm' } } as unknown as ProviderCall;
const aws = (eventType: string, payload: unknown): FramedEvent => ({
  headers: { ':event-type': eventType, ':message-type': 'event' },
  payload: Buffer.from(JSON.stringify(payload)),
});
const sse = (data: unknown): FramedEvent => ({ data: JSON.stringify(data) });

function run(map: StreamMapper, events: FramedEvent[], end = true): StreamPart[] {
  const parts = events.flatMap((e) => {
    const out = map(e);
    return out === undefined ? [] : Array.isArray(out) ? out : [out];
  });
  if (end) parts.push(...(map.end?.() ?? []));
  return parts;
}

describe('bedrock stream end', () => {
  const body = [
    aws('messageStart', { role: 'assistant' }),
    aws('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } }),
    aws('contentBlockStop', { contentBlockIndex: 0 }),
  ];
  const usage = aws('metadata', { usage: { inputTokens: 3, outputTokens: 1 } });

  it('messageStop after metadata: the finish reason still comes, then done', () => {
    const parts = run(CONVERSE_STREAM.createMapper(call), [...body, usage, aws('messageStop', { stopReason: 'max_tokens' })]);
    expect(parts.slice(1).map((p) => p.type)).toEqual(['text', 'usage', 'finish', 'done']);
    expect(parts.find((p) => p.type === 'finish')).toEqual({ type: 'finish', choice: 0, reason: 'length' });
  });

  it('messageStop before metadata: done after the usage', () => {
    const parts = run(CONVERSE_STREAM.createMapper(call), [...body, aws('messageStop', { stopReason: 'end_turn' }), usage]);
    expect(parts.slice(1).map((p) => p.type)).toEqual(['text', 'finish', 'usage', 'done']);
  });

  it('no metadata at all: done when the stream ends after messageStop', () => {
    const parts = run(CONVERSE_STREAM.createMapper(call), [...body, aws('messageStop', { stopReason: 'tool_use' })]);
    expect(parts.slice(1).map((p) => p.type)).toEqual(['text', 'finish', 'done']);
  });

  it('a stream cut before messageStop is not done', () => {
    const parts = run(CONVERSE_STREAM.createMapper(call), [...body, usage]);
    expect(parts.some((p) => p.type === 'done')).toBe(false);
  });
});

describe('anthropic second message_start', () => {
  it('is an error, never a tool call with broken JSON arguments', () => {
    const map = ANTHROPIC_STREAM.createMapper(call);
    const start = sse({ type: 'message_start', message: { id: 'msg_1', model: 'c', usage: { input_tokens: 1 } } });
    map(start);
    map(sse({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} } }));
    map(sse({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"a": "Pa' } }));
    let err: unknown;
    try {
      map(start);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).code).toBe('provider_error');
  });
});

describe('cohere null tool arguments', () => {
  it('become {} in answers', () => {
    const answer: any = fromCohereChat(
      {
        id: 'x',
        finish_reason: 'TOOL_CALL',
        message: {
          role: 'assistant',
          tool_calls: [
            { id: 'now_1', type: 'function', function: { name: 'now', arguments: null } },
            { id: 'now_2', type: 'function', function: { name: 'now', arguments: 'null' } },
          ],
        },
      },
      call,
    );
    expect(answer.choices[0].message.tool_calls.map((t: any) => t.function.arguments)).toEqual(['{}', '{}']);
  });

  it('become {} in streams', () => {
    const parts = run(COHERE_STREAM.createMapper(call), [
      sse({ type: 'message-start', id: 'x' }),
      sse({ type: 'tool-call-start', index: 0, delta: { message: { tool_calls: { id: 'now_1', type: 'function', function: { name: 'now', arguments: null } } } } }),
      sse({ type: 'tool-call-end', index: 0 }),
      sse({ type: 'tool-call-start', index: 1, delta: { message: { tool_calls: { id: 'now_2', type: 'function', function: { name: 'now', arguments: '' } } } } }),
      sse({ type: 'tool-call-delta', index: 1, delta: { message: { tool_calls: { function: { arguments: 'null' } } } } }),
      sse({ type: 'tool-call-end', index: 1 }),
    ]);
    expect(parts.filter((p) => p.type === 'tool-call-args')).toEqual([
      { type: 'tool-call-args', choice: 0, index: 0, args: '{}' },
      { type: 'tool-call-args', choice: 0, index: 1, args: '{}' },
    ]);
  });
});
