/**
 * Tools for any model on /v1/chat/completions: `tools: [{type: "mcp", server_label}]` runs the
 * same loop; the answer's message carries the executed calls in `mcp_calls`, a stream shows them
 * as chunks with `delta.mcp_calls` (the `openai` SDK, against deepseek and anthropic fakes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import type { FakeUpstream } from '../../helpers/fake-upstream.js';
import type { HttpToolServer } from '../../helpers/http-tool-server.js';
import type { TestGateway } from '../../helpers/start-gateway.js';
import { startLoopGateway, type LoopGateway } from './loop-gateway.js';
import { plan } from './fake-models.js';

type Json = Record<string, any>;

const MCP = { type: 'mcp', server_label: 'remote' } as any;

describe('/v1/chat/completions with an mcp tool of a gateway tool server', () => {
  let remote: HttpToolServer;
  let fake: FakeUpstream;
  let gw: TestGateway;
  const sdk = (provider: string) => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-provider-key-1', defaultHeaders: { 'x-gateway-provider': provider }, maxRetries: 0 });

  let loop: LoopGateway;

  beforeAll(async () => {
    loop = await startLoopGateway();
    ({ remote, fake, gw } = loop);
  });
  afterAll(() => loop?.close());

  for (const provider of ['deepseek', 'anthropic']) {
    it(`${provider}: the calls run in the gateway; the answer's message carries them in mcp_calls`, async () => {
      plan.tool = 'add';
      plan.args = { a: 4, b: 5 };
      const before = remote.calls.length;
      const completion = await sdk(provider).chat.completions.create({
        model: provider === 'anthropic' ? 'claude-sonnet-4-5' : 'm',
        messages: [
          { role: 'system', content: 'Use the tools.' },
          { role: 'user', content: 'What is 4 + 5?' },
        ],
        tools: [MCP],
      });
      const message = completion.choices[0]!.message as Json;
      expect(message.content).toBe('The tool said: 9');
      expect(message.tool_calls).toBeUndefined();
      expect(message.mcp_calls).toEqual([
        expect.objectContaining({ type: 'mcp_call', server_label: 'remote', name: 'add', arguments: '{"a":4,"b":5}', output: '9', status: 'completed' }),
      ]);
      expect(completion.choices[0]!.finish_reason).toBe('stop');
      expect(completion.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 });
      expect(remote.calls.slice(before).map((c) => c.tool)).toEqual(['add']);
    });
  }

  it('the second model call gets the caller’s messages, the call and its result', async () => {
    plan.tool = 'echo';
    plan.args = { text: 'hi' };
    await sdk('deepseek').chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'Echo hi' }], tools: [MCP] });
    const second = fake.received('POST /chat/completions').at(-1)!.json();
    expect(second.messages).toEqual([
      { role: 'user', content: 'Echo hi' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'remote__echo', arguments: '{"text":"hi"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'echo: hi' },
    ]);
    expect(second.tools.map((t: Json) => t.function.name)).toEqual(expect.arrayContaining(['remote__echo', 'remote__add']));
  });

  it('a second turn with the first answer sent back as it came (mcp_calls included): served, and mcp_calls never goes upstream', async () => {
    plan.tool = 'echo';
    plan.args = { text: 'turn one' };
    const client = sdk('deepseek');
    const messages: any[] = [{ role: 'user', content: 'Echo turn one' }];
    const first = await client.chat.completions.create({ model: 'm', messages, tools: [MCP] });
    messages.push(first.choices[0]!.message, { role: 'user', content: 'And again' });
    const second = await client.chat.completions.create({ model: 'm', messages, tools: [MCP] });
    expect((second.choices[0]!.message as Json).mcp_calls).toHaveLength(1);
    for (const sent of fake.received('POST /chat/completions').slice(-2)) expect(JSON.stringify(sent.json())).not.toContain('mcp_calls');
  });

  it('a stream shows each call as it starts and ends (delta.mcp_calls), then the answer', async () => {
    plan.tool = 'echo';
    plan.args = { text: 'streamed' };
    const stream = await sdk('deepseek').chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'Echo' }],
      tools: [MCP],
      stream: true,
      stream_options: { include_usage: true },
    });
    const calls: Json[] = [];
    let text = '';
    let usage: Json | undefined;
    let finish: string | null = null;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as Json | undefined;
      if (delta?.mcp_calls) calls.push(...delta.mcp_calls);
      if (delta?.content) text += delta.content;
      if (chunk.choices[0]?.finish_reason) finish = chunk.choices[0].finish_reason;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(calls.map((c) => c.status)).toEqual(['in_progress', 'completed']);
    expect(calls[1]).toMatchObject({ name: 'echo', output: 'echo: streamed' });
    expect(text).toBe('The tool said: echo: streamed');
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ total_tokens: 30 });
  });

  it('400 for approvals (they need /v1/responses) and for an outside server_url', async () => {
    await expect(
      sdk('deepseek').chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }], tools: [{ ...MCP, require_approval: 'always' }] }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('/v1/responses'),
    });
    await expect(
      sdk('deepseek').chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'x' }],
        tools: [{ type: 'mcp', server_label: 'far', server_url: 'https://example.com/mcp' } as any],
      }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining('"far"') });
  });
});
