import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { chatFromMessages } from '../../../../../src/features/models/messages/to-chat.js';
import { messageFromChat } from '../../../../../src/features/models/messages/from-chat.js';
import { GatewayError } from '../../../../../src/contract/errors/gateway-error.js';
import type { AnthropicContentBlock, MessagesCreateRequest } from '../../../../../src/generated/requests/messages-create.js';

const block = fc.oneof(
  fc.record({ type: fc.constant('text'), text: fc.string() }),
  fc.record({ type: fc.constant('thinking'), thinking: fc.string(), signature: fc.string() }),
  fc.record({ type: fc.constant('redacted_thinking'), data: fc.string() }),
  fc.record({ type: fc.constant('tool_use'), id: fc.string({ minLength: 1 }), name: fc.string({ minLength: 1 }), input: fc.dictionary(fc.string(), fc.jsonValue()) }),
  fc.record({ type: fc.constant('tool_result'), tool_use_id: fc.string(), content: fc.oneof(fc.string(), fc.constant(null)), is_error: fc.boolean() }),
  fc.record({
    type: fc.constant('image'),
    source: fc.record({ type: fc.constantFrom('base64', 'url', 'file'), media_type: fc.constant('image/png'), data: fc.string(), url: fc.string() }),
  }),
  fc.record({ type: fc.string() }),
);

/** Only gateway errors (a 4xx naming the field) may come out of a translation. */
function onlyGatewayErrors(fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).status).toBe(400);
  }
}

describe('Messages <-> chat translation', () => {
  it('turns any Messages request into a chat request or a 400, never a crash (property)', () => {
    const message = fc.record({ role: fc.constantFrom('user', 'assistant'), content: fc.oneof(fc.string(), fc.array(block, { maxLength: 5 })) });
    fc.assert(
      fc.property(
        fc.record({
          model: fc.string(),
          max_tokens: fc.integer({ min: 1 }),
          messages: fc.array(message, { minLength: 1, maxLength: 5 }),
          system: fc.option(fc.oneof(fc.string(), fc.array(fc.record({ type: fc.constant('text'), text: fc.string() }))), { nil: undefined }),
          thinking: fc.option(fc.record({ type: fc.constantFrom('enabled', 'disabled', 'adaptive'), budget_tokens: fc.integer({ min: 1024, max: 64000 }) }), { nil: undefined }),
          stream: fc.boolean(),
        }),
        (body) => onlyGatewayErrors(() => chatFromMessages(body as MessagesCreateRequest)),
      ),
    );
  });

  it('keeps ids, signatures and redacted data over a round trip: answer -> Message -> sent back -> chat', () => {
    const chat = {
      id: 'chatcmpl-1',
      model: 'm',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: 'Checking.',
            reasoning_content: 'Because.',
            thinking_blocks: [
              { type: 'thinking', thinking: 'Because.', signature: 'sig-1' },
              { type: 'redacted_thinking', data: 'opaque' },
            ],
            tool_calls: [
              { id: 'call_a', type: 'function', function: { name: 'f', arguments: '{"x":1}' }, extra_content: { google: { thought_signature: 'gsig' } } },
              { id: 'call_b', type: 'function', function: { name: 'g', arguments: '{}' } },
            ],
          },
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    };
    const message = messageFromChat(chat, 'm');
    const back = chatFromMessages({
      model: 'm',
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: message.content as AnthropicContentBlock[] },
      ],
    });
    const assistant = back.messages[1];
    expect(assistant.content).toBe('Checking.');
    expect(assistant.tool_calls).toEqual(chat.choices[0]!.message.tool_calls);
    expect((assistant.thinking_blocks as any[]).filter((b: any) => b.thinking !== '')).toEqual(chat.choices[0]!.message.thinking_blocks);
  });

  it('answers a Message or nothing but a well-formed one for any chat answer (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (chat) => {
        const message = messageFromChat(chat as any, 'm');
        expect(message.type).toBe('message');
        expect(Array.isArray(message.content)).toBe(true);
      }),
    );
  });
});
