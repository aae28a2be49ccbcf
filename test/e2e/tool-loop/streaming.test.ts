/**
 * A streamed tool loop streams each model call: every model call of the loop is asked as a stream
 * from the provider (in its own wire format: OpenAI chat chunks, Anthropic events, Responses
 * events), and the model's text reaches the caller piece by piece as the model sends it, with
 * the tool rounds' events in between (the `openai` and Anthropic SDKs). Thinking blocks and their
 * signatures stream too and go back to the model with the tool round.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import type { FakeUpstream } from '../../helpers/fake-upstream.js';
import type { TestGateway } from '../../helpers/start-gateway.js';
import { startLoopGateway, type LoopGateway } from './loop-gateway.js';
import { MCP_TOOL, pieces, plan } from './fake-models.js';

type Json = Record<string, any>;

/** Event types with each run of one delta type shown once, as `type x<count>`. */
function collapsed(types: string[]): string[] {
  const out: string[] = [];
  let count = 0;
  types.forEach((type, i) => {
    count++;
    if (types[i + 1] === type && type.endsWith('.delta')) return;
    out.push(count > 1 ? `${type} x${count}` : type);
    count = 0;
  });
  return out;
}

describe('a streamed tool loop streams its model calls', () => {
  let fake: FakeUpstream;
  let gw: TestGateway;
  let loop: LoopGateway;
  const openai = (provider: string) => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-provider-key-1', defaultHeaders: { 'x-gateway-provider': provider }, maxRetries: 0 });
  const anthropic = (provider: string) => new Anthropic({ baseURL: gw.url, apiKey: 'sk-test-anthropic-0001', defaultHeaders: { 'x-gateway-provider': provider }, maxRetries: 0 });

  beforeAll(async () => {
    loop = await startLoopGateway();
    ({ fake, gw } = loop);
  });
  afterAll(() => loop?.close());

  const upstreamPath: Record<string, string> = {
    deepseek: 'POST /chat/completions',
    anthropic: 'POST /v1/messages',
    openai: 'POST /oai/responses',
    google: 'POST /v1beta/models/gemini-2.5-flash:streamGenerateContent',
  };

  for (const [provider, model] of [
    ['deepseek', 'm'],
    ['anthropic', 'claude-sonnet-4-5'],
    ['openai', 'gpt-4.1'],
    ['google', 'gemini-2.5-flash'],
  ] as const)
    it(`${provider}: responses.stream gets the final answer's text delta by delta, as the model sent it, after the tool round's events`, async () => {
      plan.tool = 'echo';
      plan.args = { text: 'token by token' };
      const before = fake.received(upstreamPath[provider]).length;
      const stream = openai(provider).responses.stream({ model, input: 'Echo', tools: [MCP_TOOL] });
      const events: Json[] = [];
      stream.on('event', (event) => events.push(event));
      const final = await stream.finalResponse();

      // both model calls of the loop were asked as streams
      const sent = fake
        .received(upstreamPath[provider])
        .slice(before)
        .map((r) => r.json());
      if (provider === 'google') {
        // streamGenerateContent both times; the call's thought signature went back with it
        expect(sent).toHaveLength(2);
        expect(sent[1].contents.at(-2).parts[0]).toMatchObject({ functionCall: { args: { text: 'token by token' } }, thoughtSignature: 'gemini-sig-1' });
      } else expect(sent.map((b) => b.stream)).toEqual([true, true]);
      if (provider === 'deepseek') expect(sent.map((b) => b.stream_options)).toEqual([{ include_usage: true }, { include_usage: true }]);

      expect(collapsed(events.map((e) => e.type))).toEqual([
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.mcp_list_tools.in_progress',
        'response.mcp_list_tools.completed',
        'response.output_item.done',
        'response.output_item.added',
        'response.mcp_call_arguments.delta',
        'response.mcp_call_arguments.done',
        'response.mcp_call.in_progress',
        'response.mcp_call.completed',
        'response.output_item.done',
        'response.output_item.added',
        'response.content_part.added',
        `response.output_text.delta x${pieces('The tool said: echo: token by token').length}`,
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ]);
      const deltas = events.filter((e) => e.type === 'response.output_text.delta');
      expect(deltas.map((e) => e.delta)).toEqual(pieces('The tool said: echo: token by token'));
      const message = final.output[2]!;
      expect(deltas.every((e) => e.item_id === message.id && e.output_index === 2)).toBe(true);
      expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
      expect(final.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
      expect(final.output_text).toBe('The tool said: echo: token by token');
      expect(final.usage).toMatchObject({ input_tokens: 20, output_tokens: 10 });
    });

  it('the text is relayed as it arrives: the caller has the first piece while the model has not sent the rest', async () => {
    plan.tool = 'echo';
    plan.args = { text: 'relayed' };
    let open!: () => void;
    plan.gate = new Promise<void>((resolve) => (open = resolve));
    try {
      const stream = await openai('deepseek').chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'Echo' }],
        tools: [{ type: 'mcp', server_label: 'remote' } as any],
        stream: true,
      });
      const seen: string[] = [];
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta as Json | undefined;
        if (delta?.mcp_calls) seen.push(`mcp_call ${delta.mcp_calls[0].status}`);
        if (delta?.content) {
          seen.push(delta.content);
          // the model holds the rest of its answer until the caller has this piece
          open();
        }
      }
      expect(seen).toEqual(['mcp_call in_progress', 'mcp_call completed', ...pieces('The tool said: echo: relayed')]);
    } finally {
      plan.gate = undefined;
    }
  });

  it('/v1/messages on anthropic with thinking: the thinking block streams with its signature, the tool blocks follow, then the text; the signed block goes back to the model', async () => {
    plan.tool = 'add';
    plan.args = { a: 4, b: 5 };
    plan.thinking = true;
    try {
      const before = fake.received('POST /v1/messages').length;
      const stream = anthropic('anthropic').beta.messages.stream({
        model: 'claude-sonnet-4-5',
        max_tokens: 256,
        messages: [{ role: 'user', content: 'What is 4 + 5?' }],
        mcp_servers: [{ type: 'url', url: `${gw.url}/mcp/remote`, name: 'tools' }],
        betas: ['mcp-client-2025-04-04'],
      });
      const events: Json[] = [];
      stream.on('streamEvent', (event) => events.push(event));
      const message = await stream.finalMessage();
      const shown = events.map((e) =>
        e.type === 'content_block_start'
          ? `start ${e.index} ${e.content_block.type}`
          : e.type === 'content_block_delta'
            ? `${e.delta.type}.delta`
            : e.type === 'content_block_stop'
              ? `stop ${e.index}`
              : e.type,
      );
      expect(collapsed(shown)).toEqual([
        'message_start',
        'start 0 thinking',
        `thinking_delta.delta x${pieces('The sum needs the add tool.').length}`,
        'signature_delta.delta',
        'stop 0',
        'start 1 mcp_tool_use',
        'input_json_delta.delta',
        'stop 1',
        'start 2 mcp_tool_result',
        'stop 2',
        'start 3 text',
        `text_delta.delta x${pieces('The tool said: 9').length}`,
        'stop 3',
        'message_delta',
        'message_stop',
      ]);
      expect(events.filter((e) => e.delta?.type === 'thinking_delta').map((e) => e.delta.thinking)).toEqual(pieces('The sum needs the add tool.'));
      expect(events.filter((e) => e.delta?.type === 'text_delta').map((e) => e.delta.text)).toEqual(pieces('The tool said: 9'));
      expect(message.content.map((b) => b.type)).toEqual(['thinking', 'mcp_tool_use', 'mcp_tool_result', 'text']);
      expect(message.content[0]).toEqual({ type: 'thinking', thinking: 'The sum needs the add tool.', signature: 'sig-thinking-1' });
      const sent = fake
        .received('POST /v1/messages')
        .slice(before)
        .map((r) => r.json());
      expect(sent.map((b) => b.stream)).toEqual([true, true]);
      expect(sent[1].messages.at(-2)).toEqual({
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'The sum needs the add tool.', signature: 'sig-thinking-1' },
          { type: 'tool_use', id: 'toolu_1', name: 'remote__add', input: { a: 4, b: 5 } },
        ],
      });
    } finally {
      plan.thinking = false;
    }
  });

  it('/v1/responses on anthropic with thinking: the reasoning streams before the call and keeps its signature; the model gets the signed block back', async () => {
    plan.tool = 'add';
    plan.args = { a: 1, b: 1 };
    plan.thinking = true;
    try {
      const before = fake.received('POST /v1/messages').length;
      const stream = openai('anthropic').responses.stream({ model: 'claude-sonnet-4-5', input: 'What is 1 + 1?', tools: [MCP_TOOL], reasoning: { effort: 'low' } });
      const events: Json[] = [];
      stream.on('event', (event) => events.push(event));
      const final = await stream.finalResponse();
      const types = events.map((e) => e.type);
      expect(types.filter((t) => t === 'response.reasoning_text.delta')).toHaveLength(pieces('The sum needs the add tool.').length);
      expect(types.lastIndexOf('response.reasoning_text.delta')).toBeLessThan(types.indexOf('response.mcp_call.in_progress'));
      expect(final.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'reasoning', 'mcp_call', 'message']);
      expect(final.output[1]).toMatchObject({ type: 'reasoning', encrypted_content: 'sig-thinking-1', content: [{ type: 'reasoning_text', text: 'The sum needs the add tool.' }] });
      const second = fake.received('POST /v1/messages').slice(before)[1]!.json();
      expect(second.stream).toBe(true);
      expect(second.messages.at(-2).content[0]).toEqual({ type: 'thinking', thinking: 'The sum needs the add tool.', signature: 'sig-thinking-1' });
    } finally {
      plan.thinking = false;
    }
  });

  it('/v1/chat/completions on anthropic with thinking: reasoning_content streams first, then the calls, then the text; the signed block goes back to the model', async () => {
    plan.tool = 'add';
    plan.args = { a: 3, b: 3 };
    plan.thinking = true;
    try {
      const before = fake.received('POST /v1/messages').length;
      const stream = await openai('anthropic').chat.completions.create({
        model: 'claude-sonnet-4-5',
        messages: [{ role: 'user', content: 'What is 3 + 3?' }],
        tools: [{ type: 'mcp', server_label: 'remote' } as any],
        stream: true,
      });
      const seen: string[] = [];
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta as Json | undefined;
        if (delta?.reasoning_content) seen.push(`reasoning ${delta.reasoning_content}`);
        if (delta?.mcp_calls) seen.push(`mcp_call ${delta.mcp_calls[0].status}`);
        if (delta?.content) seen.push(`text ${delta.content}`);
      }
      expect(seen).toEqual([
        ...pieces('The sum needs the add tool.').map((p) => `reasoning ${p}`),
        'mcp_call in_progress',
        'mcp_call completed',
        ...pieces('The tool said: 6').map((p) => `text ${p}`),
      ]);
      const sent = fake
        .received('POST /v1/messages')
        .slice(before)
        .map((r) => r.json());
      expect(sent.map((b) => b.stream)).toEqual([true, true]);
      expect(sent[1].messages.at(-2).content[0]).toEqual({ type: 'thinking', thinking: 'The sum needs the add tool.', signature: 'sig-thinking-1' });
    } finally {
      plan.thinking = false;
    }
  });

  it('/v1/responses on openai with reasoning: the encrypted reasoning item is shown before the call and goes back to the model with the tool round', async () => {
    plan.tool = 'echo';
    plan.args = { text: 'reasoned' };
    plan.thinking = true;
    try {
      const before = fake.received('POST /oai/responses').length;
      const stream = openai('openai').responses.stream({ model: 'o4-mini', input: 'Echo', tools: [MCP_TOOL], include: ['reasoning.encrypted_content'] });
      const events: Json[] = [];
      stream.on('event', (event) => events.push(event));
      const final = await stream.finalResponse();
      expect(final.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'reasoning', 'mcp_call', 'message']);
      expect(final.output[1]).toMatchObject({ encrypted_content: 'enc-reasoning-1', summary: [{ type: 'summary_text', text: 'Needs the tool.' }] });
      const shown = events.findIndex((e) => e.type === 'response.output_item.done' && e.item.type === 'reasoning');
      expect(shown).toBeGreaterThan(-1);
      expect(shown).toBeLessThan(events.findIndex((e) => e.type === 'response.mcp_call.in_progress'));
      const second = fake.received('POST /oai/responses').slice(before)[1]!.json();
      expect(second.stream).toBe(true);
      expect(second.input.filter((i: Json) => i.type).map((i: Json) => i.type)).toEqual(['reasoning', 'function_call', 'function_call_output']);
      expect(second.input.find((i: Json) => i.type === 'reasoning')).toMatchObject({ id: 'rs_up', encrypted_content: 'enc-reasoning-1' });
    } finally {
      plan.thinking = false;
    }
  });
});
