import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { chatFromResponses } from '../../../../../src/features/models/responses/to-chat.js';
import { responseFromChat } from '../../../../../src/features/models/responses/from-chat.js';
import { GatewayError } from '../../../../../src/contract/errors/gateway-error.js';
import type { ResponsesCreateRequest } from '../../../../../src/generated/requests/responses-create.js';

/** Only gateway errors (a 4xx naming the field) may come out of a translation. */
function onlyGatewayErrors(fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).status).toBe(400);
  }
}

describe('Responses <-> chat translation', () => {
  const item = fc.oneof(
    fc.record({
      role: fc.constantFrom('user', 'assistant', 'system', 'developer', 'tool'),
      content: fc.oneof(
        fc.string(),
        fc.array(fc.record({ type: fc.constantFrom('input_text', 'output_text', 'input_image', 'refusal', 'x'), text: fc.string() }), { maxLength: 3 }),
      ),
    }),
    fc.record({ type: fc.constant('function_call'), call_id: fc.string(), name: fc.string(), arguments: fc.string() }),
    fc.record({ type: fc.constant('function_call_output'), call_id: fc.string(), output: fc.string() }),
    fc.record({
      type: fc.constant('reasoning'),
      summary: fc.constant([]),
      content: fc.option(fc.array(fc.record({ type: fc.constant('reasoning_text'), text: fc.string() })), { nil: undefined }),
      encrypted_content: fc.option(fc.string(), { nil: undefined }),
    }),
    fc.record({ type: fc.string() }),
  );

  it('turns any Responses request into a chat request or a 400, never a crash (property)', () => {
    fc.assert(
      fc.property(
        fc.record({
          model: fc.string(),
          input: fc.oneof(fc.string(), fc.array(item, { maxLength: 6 })),
          instructions: fc.option(fc.string(), { nil: undefined }),
          background: fc.boolean(),
        }),
        (body) => onlyGatewayErrors(() => chatFromResponses(body as ResponsesCreateRequest)),
      ),
    );
  });

  it('sends reasoning items back as thinking blocks (signature in encrypted_content; redacted without content) on the assistant turn they precede', () => {
    const chat = chatFromResponses({
      model: 'm',
      input: [
        { role: 'user', content: 'Hi' },
        { type: 'reasoning', id: 'rs_1', summary: [], content: [{ type: 'reasoning_text', text: 'Think.' }], encrypted_content: 'sig' },
        { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'opaque' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Calling.' }] },
        { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'ok' },
      ],
    });
    expect(chat.messages).toEqual([
      { role: 'user', content: 'Hi' },
      {
        role: 'assistant',
        content: 'Calling.',
        thinking_blocks: [
          { type: 'thinking', thinking: 'Think.', signature: 'sig' },
          { type: 'redacted_thinking', data: 'opaque' },
        ],
        reasoning_content: 'Think.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
    ]);
  });

  it('answers a well-formed response for any chat answer (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (chat) => {
        const response = responseFromChat(chat as any, { model: 'm' });
        expect(response.object).toBe('response');
        expect(Array.isArray(response.output)).toBe(true);
      }),
    );
  });
});
