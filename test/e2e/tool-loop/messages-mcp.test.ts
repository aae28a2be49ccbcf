/**
 * Tools for any model on /v1/messages: Anthropic's `mcp_servers` with a url naming a gateway tool
 * server (tool_configuration.allowed_tools) is run by the gateway for anthropic, for an
 * OpenAI-compatible provider and for openai; the answer has mcp_tool_use / mcp_tool_result blocks in Anthropic's
 * order (the Anthropic SDK, whole and streamed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import type { FakeUpstream } from '../../helpers/fake-upstream.js';
import type { HttpToolServer } from '../../helpers/http-tool-server.js';
import type { TestGateway } from '../../helpers/start-gateway.js';
import { startLoopGateway, type LoopGateway } from './loop-gateway.js';
import { anthropicModel, plan } from './fake-models.js';

type Json = Record<string, any>;

describe('/v1/messages with mcp_servers naming a gateway tool server', () => {
  let remote: HttpToolServer;
  let fake: FakeUpstream;
  let gw: TestGateway;
  const sdk = (provider: string) => new Anthropic({ baseURL: gw.url, apiKey: 'sk-test-anthropic-0001', defaultHeaders: { 'x-gateway-provider': provider }, maxRetries: 0 });
  const servers = () => [{ type: 'url' as const, url: `${gw.url}/mcp/remote`, name: 'tools', tool_configuration: { allowed_tools: ['add', 'echo'] } }];

  let loop: LoopGateway;

  beforeAll(async () => {
    loop = await startLoopGateway();
    ({ remote, fake, gw } = loop);
  });
  afterAll(() => loop?.close());

  for (const provider of ['anthropic', 'deepseek', 'openai']) {
    it(`${provider}: mcp_tool_use, mcp_tool_result, then the answer`, async () => {
      plan.tool = 'add';
      plan.args = { a: 1, b: 2 };
      const before = remote.calls.length;
      const upstream = { anthropic: 'POST /v1/messages', deepseek: 'POST /chat/completions', openai: 'POST /oai/chat/completions' }[provider]!;
      const modelCallsBefore = fake.received(upstream).length;
      const message = await sdk(provider).beta.messages.create({
        model: provider === 'anthropic' ? 'claude-sonnet-4-5' : 'm',
        max_tokens: 256,
        messages: [{ role: 'user', content: 'What is 1 + 2?' }],
        mcp_servers: servers(),
        betas: ['mcp-client-2025-04-04'],
      });
      expect(message.content.map((b) => b.type)).toEqual(['mcp_tool_use', 'mcp_tool_result', 'text']);
      const [use, result, text] = message.content as Json[];
      expect(use).toMatchObject({ name: 'add', server_name: 'tools', input: { a: 1, b: 2 } });
      expect(result).toMatchObject({ tool_use_id: use!.id, is_error: false, content: [{ type: 'text', text: '3' }] });
      expect(text!.text).toBe('The tool said: 3');
      expect(message.stop_reason).toBe('end_turn');
      expect(message.usage).toMatchObject({ input_tokens: 20, output_tokens: 10 });
      expect(remote.calls.slice(before).map((c) => c.tool)).toEqual(['add']);
      // both model calls went to the provider's own API (openai: its chat completions)
      expect(fake.received(upstream).length - modelCallsBefore).toBe(2);
      if (provider === 'anthropic') {
        const sent = fake.received('POST /v1/messages').at(-1)!.json();
        expect(sent.mcp_servers).toBeUndefined();
        expect(sent.tools.map((t: Json) => t.name).sort()).toEqual(['remote__add', 'remote__echo']);
        expect(sent.messages.at(-2)).toMatchObject({ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'remote__add', input: { a: 1, b: 2 } }] });
        expect(sent.messages.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '3' }] });
      }
    });
  }

  it('streamed: the blocks come as Anthropic events, in order', async () => {
    plan.tool = 'echo';
    plan.args = { text: 'streamed' };
    const stream = sdk('deepseek').beta.messages.stream({
      model: 'm',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Echo' }],
      mcp_servers: servers(),
      betas: ['mcp-client-2025-04-04'],
    });
    const message = await stream.finalMessage();
    expect(message.content.map((b) => b.type)).toEqual(['mcp_tool_use', 'mcp_tool_result', 'text']);
    expect((message.content[0] as Json).input).toEqual({ text: 'streamed' });
    expect((message.content[2] as Json).text).toBe('The tool said: echo: streamed');
    expect(message.usage.output_tokens).toBe(10);
  });

  it('an outside url goes to anthropic untouched; another provider answers 400 naming it', async () => {
    const outside = [{ type: 'url' as const, url: 'https://mcp.example.com/sse', name: 'far' }];
    await expect(sdk('deepseek').beta.messages.create({ model: 'm', max_tokens: 16, messages: [{ role: 'user', content: 'x' }], mcp_servers: outside })).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/MCP server \\?"far\\?" is outside this gateway/),
    });
    fake.on('POST /v1/messages', {
      json: {
        id: 'msg_x',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'text', text: 'ok' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    });
    try {
      await sdk('anthropic').beta.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'x' }], mcp_servers: outside });
      expect(fake.received('POST /v1/messages').at(-1)!.json().mcp_servers).toEqual(outside);
    } finally {
      fake.on('POST /v1/messages', anthropicModel);
    }
  });
});
