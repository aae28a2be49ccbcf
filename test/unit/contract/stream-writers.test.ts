import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { AnthropicMessagesWriter } from '../../../src/contract/anthropic/messages-writer.js';
import { ResponsesWriter } from '../../../src/contract/openai/responses-writer.js';
import { OpenAIChunkWriter } from '../../../src/contract/openai/chunk-writer.js';
import { ChunkReader } from '../../../src/contract/openai/chunk-reader.js';
import type { StreamPart } from '../../../src/contract/stream-parts.js';

function events(text: string): Array<{ event: string; data: any }> {
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => ({ event: /^event: (.*)$/m.exec(block)![1]!, data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!) }));
}

const META: StreamPart = { type: 'meta', id: 'chatcmpl-abc', model: 'm', created: 1700000000, inputTokens: 50, cachedTokens: 10 };
const ANSWER: StreamPart[] = [
  META,
  { type: 'reasoning', choice: 0, text: 'Think ' },
  { type: 'reasoning', choice: 0, text: 'hard.' },
  { type: 'thinking-block', choice: 0, block: { type: 'thinking', thinking: 'Think hard.', signature: 'sig1' } },
  { type: 'thinking-block', choice: 0, block: { type: 'redacted_thinking', data: 'opaque' } },
  { type: 'text', choice: 0, text: 'Hello' },
  { type: 'tool-call-start', choice: 0, index: 0, id: 'call_1', name: 'f' },
  { type: 'tool-call-args', choice: 0, index: 0, args: '{"a":' },
  { type: 'tool-call-start', choice: 0, index: 1, id: 'call_2', name: 'g', signature: 'gsig' },
  { type: 'tool-call-args', choice: 0, index: 0, args: '1}' },
  { type: 'tool-call-args', choice: 0, index: 1, args: '{}' },
  { type: 'finish', choice: 0, reason: 'tool_calls' },
  { type: 'usage', usage: { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70, prompt_tokens_details: { cached_tokens: 10 } } },
  { type: 'done' },
];

describe('AnthropicMessagesWriter', () => {
  it('writes each text delta exactly as JSON.stringify writes its event object, whatever the text (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', minLength: 1 }), { minLength: 1, maxLength: 6 }), (texts) => {
        const writer = new AnthropicMessagesWriter();
        const text = [META, ...texts.map((t): StreamPart => ({ type: 'text', choice: 0, text: t }))].map((p) => writer.write(p)).join('');
        const deltas = text.split('\n\n').filter((b) => b.startsWith('event: content_block_delta\n'));
        expect(deltas).toHaveLength(texts.length);
        deltas.forEach((block, i) => {
          const data = block.slice(block.indexOf('\ndata: ') + 7);
          expect(data).toBe(JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: texts[i] } }));
        });
      }),
    );
  });

  it('writes message_start with input tokens, blocks in order each closed before the next kind, message_delta with the usage', () => {
    const writer = new AnthropicMessagesWriter();
    const out = events(ANSWER.map((p) => writer.write(p)).join(''));
    expect(out.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(out[0]!.data.message).toMatchObject({ id: 'msg_abc', model: 'm', usage: { input_tokens: 40, cache_read_input_tokens: 10 } });
    expect(out[4]!.data.delta).toEqual({ type: 'signature_delta', signature: 'sig1' });
    expect(out[6]!.data.content_block).toEqual({ type: 'redacted_thinking', data: 'opaque' });
    // the call's signature in an empty thinking block right before its tool_use
    expect(out[13]!.data.content_block).toEqual({ type: 'thinking', thinking: '', signature: '' });
    expect(out[14]!.data.delta).toEqual({ type: 'signature_delta', signature: 'gsig' });
    expect(out.at(-2)!.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { input_tokens: 40, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 10 },
    });
    expect(writer.failure({ type: 'error', error: { type: 'api_error', message: 'x' } })).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"x"}}\n\n',
    );
  });

  it('passes upstream events through and adds nothing after them', () => {
    const writer = new AnthropicMessagesWriter();
    const text = [{ type: 'event', event: 'message_stop', data: '{"type":"message_stop"}' } as StreamPart, { type: 'done' } as StreamPart].map((p) => writer.write(p)).join('');
    expect(text).toBe('event: message_stop\ndata: {"type":"message_stop"}\n\n');
  });

  it('never puts a delta in a block of another kind, whatever order the parts come in (property)', () => {
    const part = fc.oneof(
      fc.string({ minLength: 1, maxLength: 5 }).map((text) => ({ type: 'text', choice: 0, text }) as StreamPart),
      fc.string({ minLength: 1, maxLength: 5 }).map((text) => ({ type: 'reasoning', choice: 0, text }) as StreamPart),
      fc.constant({ type: 'thinking-block', choice: 0, block: { type: 'thinking', thinking: 'x', signature: 's' } } as StreamPart),
      fc.constant({ type: 'thinking-block', choice: 0, block: { type: 'redacted_thinking', data: 'd' } } as StreamPart),
      fc.nat(2).map((index) => ({ type: 'tool-call-start', choice: 0, index, id: `c${index}`, name: 'f' }) as StreamPart),
      fc.nat(2).map((index) => ({ type: 'tool-call-args', choice: 0, index, args: '{' }) as StreamPart),
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 30 }), (parts) => {
        const writer = new AnthropicMessagesWriter();
        const out = events([META, ...parts, { type: 'done' } as StreamPart].map((p) => writer.write(p)).join(''));
        const kinds = new Map<number, string>();
        const open = new Set<number>();
        for (const { event, data } of out) {
          if (event === 'content_block_start') {
            kinds.set(data.index, data.content_block.type);
            open.add(data.index);
          }
          if (event === 'content_block_delta') {
            expect(open.has(data.index)).toBe(true);
            const kind = kinds.get(data.index);
            if (data.delta.type === 'text_delta') expect(kind).toBe('text');
            if (data.delta.type === 'thinking_delta' || data.delta.type === 'signature_delta') expect(kind).toBe('thinking');
            if (data.delta.type === 'input_json_delta') expect(kind).toBe('tool_use');
          }
          if (event === 'content_block_stop') open.delete(data.index);
        }
        expect(open.size).toBe(0);
        expect(out.at(-1)!.event).toBe('message_stop');
        expect(out.filter((e) => e.event === 'message_start')).toHaveLength(1);
      }),
    );
  });
});

/** A response id the gateway minted (what responses-via-chat puts on the meta part). */
const MINTED = `resp_${'ab12'.repeat(12)}`;
const TAIL = MINTED.slice('resp_'.length);

describe('ResponsesWriter', () => {
  it('writes the Responses events of each item and response.completed with the whole response; a silent writer holds the same response', () => {
    const request = { model: 'm', instructions: 'Be brief.', tools: [{ type: 'function', name: 'f' }], store: false };
    const writer = new ResponsesWriter(request);
    const silent = new ResponsesWriter(request, true);
    const minted = ANSWER.map((p) => (p.type === 'meta' ? { ...p, id: MINTED } : p));
    const text = minted
      .map((p) => {
        silent.write(p);
        return writer.write(p);
      })
      .join('');
    const out = events(text);
    expect(out.map((e) => e.data.sequence_number)).toEqual(out.map((_, i) => i));
    expect(out[0]!.event).toBe('response.created');
    expect(out[0]!.data.response).toMatchObject({ id: MINTED, status: 'in_progress', instructions: 'Be brief.', store: false, output: [] });
    const completed = out.at(-1)!;
    expect(completed.event).toBe('response.completed');
    expect(completed.data.response.output).toEqual([
      { id: `rs_${TAIL}_0`, type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'Think hard.' }], encrypted_content: 'sig1' },
      { id: `rs_${TAIL}_1`, type: 'reasoning', summary: [], encrypted_content: 'opaque' },
      { id: `msg_${TAIL}_2`, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hello', annotations: [], logprobs: [] }] },
      { id: `fc_${TAIL}_3`, type: 'function_call', status: 'completed', call_id: 'call_1', name: 'f', arguments: '{"a":1}' },
      { id: `fc_${TAIL}_4`, type: 'function_call', status: 'completed', call_id: 'call_2', name: 'g', arguments: '{}', extra_content: { google: { thought_signature: 'gsig' } } },
    ]);
    expect(completed.data.response.usage).toEqual({
      input_tokens: 50,
      input_tokens_details: { cached_tokens: 10 },
      output_tokens: 20,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 70,
    });
    expect(silent.result()).toEqual(completed.data.response);
  });

  it('never takes its id from an upstream id: a chat id gets a new random response id each time', () => {
    const first = events(new ResponsesWriter({ model: 'm' }).write(META));
    const second = events(new ResponsesWriter({ model: 'm' }).write(META));
    const ids = [first[0]!.data.response.id, second[0]!.data.response.id];
    for (const id of ids) expect(id).toMatch(/^resp_[0-9a-f]{48}$/);
    expect(ids[0]).not.toBe(ids[1]);
    const forged = events(new ResponsesWriter({ model: 'm' }).write({ ...META, id: 'resp_abc' } as StreamPart));
    expect(forged[0]!.data.response.id).not.toBe('resp_abc');
  });

  it('writes each text delta exactly as JSON.stringify writes its event object, whatever the text (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', minLength: 1 }), { minLength: 1, maxLength: 6 }), (texts) => {
        const writer = new ResponsesWriter({ model: 'm' });
        const text = [META, ...texts.map((t): StreamPart => ({ type: 'text', choice: 0, text: t }))].map((p) => writer.write(p)).join('');
        const blocks = text.split('\n\n').filter(Boolean);
        // Every event, the hand-written ones too, is exactly what JSON.stringify writes for its object.
        for (const block of blocks) {
          const data = block.slice(block.indexOf('\ndata: ') + 7);
          expect(data).toBe(JSON.stringify(JSON.parse(data)));
        }
        expect(blocks[0]).toMatch(/^event: response\.created\n/);
        const responseOf = (block: string) => block.slice(block.indexOf('"response":'));
        expect(blocks[1]).toMatch(/^event: response\.in_progress\n/);
        expect(responseOf(blocks[1]!)).toBe(responseOf(blocks[0]!));
        const deltas = blocks.filter((b) => b.startsWith('event: response.output_text.delta\n'));
        expect(deltas).toHaveLength(texts.length);
        deltas.forEach((block, i) => {
          const data = block.slice(block.indexOf('\ndata: ') + 7);
          const parsed = JSON.parse(data);
          const expected = {
            type: 'response.output_text.delta',
            sequence_number: parsed.sequence_number,
            item_id: parsed.item_id,
            output_index: 0,
            content_index: 0,
            delta: texts[i],
            logprobs: [],
          };
          expect(data).toBe(JSON.stringify(expected));
        });
      }),
    );
  });

  it('ends an answer cut by the token limit with response.incomplete', () => {
    const writer = new ResponsesWriter({ model: 'm' });
    const out = events(
      [META, { type: 'text', choice: 0, text: 'Hi' }, { type: 'finish', choice: 0, reason: 'length' }, { type: 'done' }].map((p) => writer.write(p as StreamPart)).join(''),
    );
    expect(out.at(-1)!.event).toBe('response.incomplete');
    expect(out.at(-1)!.data.response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
  });
});

describe('OpenAIChunkWriter and ChunkReader', () => {
  it('reads back what the chunk writer wrote: reasoning, thinking blocks, tool calls with signatures, finish, usage', () => {
    const writer = new OpenAIChunkWriter('chat', true);
    const text = ANSWER.map((p) => writer.write(p)).join('');
    const reader = new ChunkReader();
    const parts = text
      .split('\n\n')
      .filter((e) => e.startsWith('data: ') && e !== 'data: [DONE]')
      .flatMap((e) => reader.read(e.slice(6)));
    const { inputTokens: _i, cachedTokens: _c, ...meta } = META as any;
    expect(parts).toEqual([meta, ...ANSWER.slice(1, -1)]);
  });

  it('reads chunks in OpenAI’s spelling (text, first, finish, usage) without a parse, and any chunk exactly as its parsed value reads (fast-check)', () => {
    // Half the strings without escapes, so that the chunks often come in the spelling read without a parse.
    const anyText = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', ' ', 'é', '😀', '}', ',') }),
      fc.string({ unit: fc.constantFrom('a', ' ', '"', '\\', '\n', 'é', '😀', '\u2028', '\u0001', '}', ',') }),
    );
    const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
    const chunk = fc
      .record({
        id: anyText,
        created: fc.oneof(fc.nat(), fc.constant(1_700_000_000)),
        model: anyText,
        service_tier: optional(anyText),
        system_fingerprint: optional(fc.oneof(anyText, fc.constant(null))),
        role: fc.boolean(),
        content: optional(anyText),
        refusal: fc.boolean(),
        index: fc.constantFrom(0, 0, 0, 1),
        finish_reason: fc.constantFrom(null, null, null, 'stop', 'length', 'other'),
        noChoices: fc.constantFrom(false, false, true),
        emptyDelta: fc.constantFrom(false, false, true),
        usage: fc.constantFrom(
          undefined,
          null,
          { prompt_tokens: 1, completion_tokens: 2 },
          { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3, prompt_tokens_details: { cached_tokens: 0 } },
          [1],
          'x',
        ),
        obfuscation: optional(anyText),
      })
      .map((c) => {
        const delta: Record<string, unknown> = {};
        if (c.role && !c.emptyDelta) delta.role = 'assistant';
        if (c.content !== undefined && !c.emptyDelta) delta.content = c.content;
        if (c.refusal && !c.emptyDelta) delta.refusal = null;
        const out: Record<string, unknown> = { id: c.id, object: 'chat.completion.chunk', created: c.created, model: c.model };
        if (c.service_tier !== undefined) out.service_tier = c.service_tier;
        if (c.system_fingerprint !== undefined) out.system_fingerprint = c.system_fingerprint;
        out.choices = c.noChoices ? [] : [{ index: c.index, delta, logprobs: null, finish_reason: c.finish_reason }];
        if (c.usage !== undefined) out.usage = c.usage;
        if (c.obfuscation !== undefined) out.obfuscation = c.obfuscation;
        return JSON.stringify(out);
      });
    const started = () => {
      const reader = new ChunkReader();
      reader.read({ id: 'x', model: 'm', created: 1, choices: [] });
      return reader;
    };
    fc.assert(
      fc.property(chunk, (text) => {
        expect(started().read(text)).toEqual(started().read(JSON.parse(text)));
        // The first chunk of an answer (its ids read too).
        expect(new ChunkReader().read(text)).toEqual(new ChunkReader().read(JSON.parse(text)));
      }),
      { numRuns: 500 },
    );
    // The plain spelling is read without JSON.parse (the usage chunk: its usage object alone).
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const plain =
        '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini","service_tier":"default","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"a1"}';
      expect(started().read(plain)).toEqual([{ type: 'text', choice: 0, text: 'Hello' }]);
      const envelope = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini","service_tier":"default","system_fingerprint":"fp_1",';
      expect(new ChunkReader().read(`${envelope}"choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}`)).toEqual([
        { type: 'meta', id: 'chatcmpl-1', model: 'gpt-4o-mini', created: 1700000000 },
      ]);
      for (const reason of ['stop', 'length', 'tool_calls', 'content_filter', 'function_call']) {
        expect(started().read(`${envelope}"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"${reason}"}]}`)).toEqual([{ type: 'finish', choice: 0, reason }]);
      }
      expect(new ChunkReader().read(`${envelope}"choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"logprobs":null,"finish_reason":null}]}`)).toEqual([
        { type: 'meta', id: 'chatcmpl-1', model: 'gpt-4o-mini', created: 1700000000 },
        { type: 'text', choice: 0, text: 'Hi' },
      ]);
      expect(started().read(`${envelope}"choices":[],"usage":{"prompt_tokens":42,"completion_tokens":20,"total_tokens":62},"obfuscation":"x}"}`)).toEqual([
        { type: 'usage', usage: { prompt_tokens: 42, completion_tokens: 20, total_tokens: 62 } },
      ]);
      expect(parse.mock.calls).toEqual([['{"prompt_tokens":42,"completion_tokens":20,"total_tokens":62}']]);
    } finally {
      parse.mockRestore();
    }
  });
});

describe('ResponsesWriter (property)', () => {
  it('closes every item it opened and reports the same response as a silent writer, whatever order the parts come in', () => {
    const part = fc.oneof(
      fc.string({ minLength: 1, maxLength: 5 }).map((text) => ({ type: 'text', choice: 0, text }) as StreamPart),
      fc.string({ minLength: 1, maxLength: 5 }).map((text) => ({ type: 'reasoning', choice: 0, text }) as StreamPart),
      fc.constant({ type: 'thinking-block', choice: 0, block: { type: 'thinking', thinking: 'x', signature: 's' } } as StreamPart),
      fc.constant({ type: 'thinking-block', choice: 0, block: { type: 'redacted_thinking', data: 'd' } } as StreamPart),
      fc.nat(2).map((index) => ({ type: 'tool-call-start', choice: 0, index, id: `c${index}`, name: 'f' }) as StreamPart),
      fc.nat(2).map((index) => ({ type: 'tool-call-args', choice: 0, index, args: '{' }) as StreamPart),
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 30 }), (parts) => {
        const writer = new ResponsesWriter({ model: 'm' });
        const silent = new ResponsesWriter({ model: 'm' }, true);
        const all = [{ ...META, id: MINTED } as StreamPart, ...parts, { type: 'done' } as StreamPart];
        const out = events(all.map((p) => (silent.write(p), writer.write(p))).join(''));
        const added = out.filter((e) => e.event === 'response.output_item.added').map((e) => e.data.output_index);
        const done = out.filter((e) => e.event === 'response.output_item.done').map((e) => e.data.output_index);
        expect([...done].sort()).toEqual([...added].sort());
        const final = out.at(-1)!.data.response;
        expect(final.output.every((item: any) => item.status === undefined || item.status === 'completed')).toBe(true);
        expect(silent.result()).toEqual(final);
      }),
    );
  });
});

describe('OpenAIChunkWriter chat chunks (property)', () => {
  it('writes text and finish chunks exactly as JSON.stringify writes the chunk object, role in each choice first delta', () => {
    const anyText = fc.string({ unit: fc.constantFrom('a', ' ', '"', '\\', '\n', 'é', '😀', '\u2028', '\u0001') });
    const part = fc.oneof(
      fc.record({ type: fc.constant('text' as const), choice: fc.nat(3), text: anyText }),
      fc.record({ type: fc.constant('finish' as const), choice: fc.nat(3), reason: fc.constantFrom('stop' as const, 'length' as const, 'tool_calls' as const) }),
    );
    fc.assert(
      fc.property(anyText, anyText, fc.nat(), fc.array(part, { maxLength: 8 }), (id, model, created, parts) => {
        const writer = new OpenAIChunkWriter('chat', false);
        expect(writer.write({ type: 'meta', id, model, created })).toBe('');
        const roleSent = new Set<number>();
        for (const p of parts) {
          const delta: Record<string, unknown> = roleSent.has(p.choice) ? {} : { role: 'assistant' };
          roleSent.add(p.choice);
          if (p.type === 'text') delta.content = p.text;
          const chunk = {
            id,
            object: 'chat.completion.chunk',
            created,
            model,
            choices: [{ index: p.choice, delta, logprobs: null, finish_reason: p.type === 'finish' ? p.reason : null }],
            system_fingerprint: null,
          };
          expect(writer.write(p)).toBe(`data: ${JSON.stringify(chunk)}\n\n`);
        }
      }),
    );
  });
});
