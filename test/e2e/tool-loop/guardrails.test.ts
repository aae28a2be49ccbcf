/**
 * The /mcp tool guardrails (the MCP pipeline's guardrail stage: toolArguments, toolResults, tools)
 * apply to the tool loop's calls as well: arguments a guardrail denies never reach the tool
 * server; a result it denies never reaches the model (an mcp_call error, an is_error
 * mcp_tool_result); redacted arguments reach the server masked.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import type { FakeUpstream } from '../../helpers/fake-upstream.js';
import type { HttpToolServer } from '../../helpers/http-tool-server.js';
import type { TestGateway } from '../../helpers/start-gateway.js';
import { startLoopGateway, type LoopGateway } from './loop-gateway.js';
import { MCP_TOOL, plan } from './fake-models.js';

type Json = Record<string, any>;

describe('the /mcp tool guardrails on the tool loop’s calls', () => {
  let remote: HttpToolServer;
  let fake: FakeUpstream;
  let gw: TestGateway;
  let loop: LoopGateway;
  let dir: string;
  const openai = () => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-provider-key-1', defaultHeaders: { 'x-gateway-provider': 'deepseek' }, maxRetries: 0 });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tool-loop-guardrails-'));
    writeFileSync(
      join(dir, 'mcp.yaml'),
      'name: mcp\nextends: mcp\nconfigure:\n  guardrail: { toolArguments: [no-keys, mask-pii], toolResults: [no-internal], tools: ["remote__*"] }\n',
    );
    loop = await startLoopGateway(() => ({
      pipelines: { dir },
      guardrails: {
        'no-keys': { action: 'deny', checks: [{ type: 'regex', pattern: 'sk-[A-Za-z0-9]{8,}' }] },
        'mask-pii': { action: 'redact', checks: [{ type: 'pii' }] },
        'no-internal': { action: 'deny', checks: [{ type: 'regex', pattern: 'INTERNAL-ONLY' }] },
      },
    }));
    ({ remote, fake, gw } = loop);
  });
  afterAll(async () => {
    await loop?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The tool messages of the loop's last model call (what the model read of its calls). */
  const toolMessages = () =>
    fake
      .received('POST /chat/completions')
      .at(-1)!
      .json()
      .messages.filter((m: Json) => m.role === 'tool');

  it('denied arguments: the call never reaches the tool server; the mcp_call is failed naming the guardrail, and the model is told', async () => {
    plan.tool = 'echo';
    plan.args = { text: 'my key is sk-abcdefgh1234' };
    const before = remote.calls.length;
    const response = await openai().responses.create({ model: 'm', input: 'Echo', tools: [MCP_TOOL] });
    const call = response.output.find((i) => i.type === 'mcp_call') as Json;
    expect(call).toMatchObject({ name: 'echo', status: 'failed', output: null });
    expect(call.error).toContain('Guardrail "no-keys" denied the call of tool remote__echo');
    expect(remote.calls.length).toBe(before);
    const [tool] = toolMessages();
    expect(tool.content).toMatch(/^Error: The call of echo was refused by a guardrail: Guardrail "no-keys" denied/);
    expect(tool.content).not.toContain('sk-abcdefgh1234');
  });

  it('a denied result: the server ran the call, but its result never reaches the model; the mcp_call is failed', async () => {
    plan.tool = 'echo';
    plan.args = { text: 'INTERNAL-ONLY plans' };
    const before = remote.calls.length;
    const response = await openai().responses.create({ model: 'm', input: 'Echo', tools: [MCP_TOOL] });
    expect(remote.calls.length).toBe(before + 1);
    const call = response.output.find((i) => i.type === 'mcp_call') as Json;
    expect(call).toMatchObject({ status: 'failed', output: null });
    expect(call.error).toContain('Guardrail "no-internal" denied the result of tool remote__echo');
    expect(JSON.stringify(response.output)).not.toContain('echo: INTERNAL-ONLY');
    const [tool] = toolMessages();
    expect(tool.content).toMatch(/^Error: The result of echo was withheld by a guardrail/);
    expect(tool.content).not.toContain('echo: INTERNAL-ONLY');
  });

  it('redacted arguments reach the tool server masked', async () => {
    plan.tool = 'echo';
    plan.args = { text: 'write to ada@example.org' };
    const response = await openai().responses.create({ model: 'm', input: 'Echo', tools: [MCP_TOOL] });
    expect(response.output.find((i) => i.type === 'mcp_call')).toMatchObject({ status: 'completed', output: 'echo: write to [REDACTED_EMAIL]' });
    expect(toolMessages()[0].content).toBe('echo: write to [REDACTED_EMAIL]');
  });

  it('/v1/messages, streamed: a denied result is an is_error mcp_tool_result, and the model gets an is_error tool_result without it', async () => {
    plan.tool = 'echo';
    plan.args = { text: 'INTERNAL-ONLY roadmap' };
    const client = new Anthropic({ baseURL: gw.url, apiKey: 'sk-test-anthropic-0001', defaultHeaders: { 'x-gateway-provider': 'anthropic' }, maxRetries: 0 });
    const message = await client.beta.messages
      .stream({
        model: 'claude-sonnet-4-5',
        max_tokens: 256,
        messages: [{ role: 'user', content: 'Echo' }],
        mcp_servers: [{ type: 'url', url: `${gw.url}/mcp/remote`, name: 'tools' }],
        betas: ['mcp-client-2025-04-04'],
      })
      .finalMessage();
    const result = message.content.find((b) => b.type === 'mcp_tool_result') as Json;
    expect(result.is_error).toBe(true);
    expect(result.content[0].text).toContain('Guardrail "no-internal" denied the result of tool remote__echo');
    const sent = fake.received('POST /v1/messages').at(-1)!.json();
    const toolResult = sent.messages.at(-1).content[0];
    expect(toolResult).toMatchObject({ type: 'tool_result', is_error: true });
    expect(toolResult.content).not.toContain('echo: INTERNAL-ONLY');
  });
});

/**
 * Output guardrails of the provider route (the responses pipeline's guardrail stage) check each
 * model call of the loop: a streamed call is read whole, checked, then relayed (the stage's own
 * stream path), so the caller never sees what a guardrail masks or denies; tool results are the
 * /mcp guardrails' business and reach the model as the server gave them.
 */
describe('output guardrails of the route on the tool loop’s model calls', () => {
  let fake: FakeUpstream;
  let gw: TestGateway;
  let loop: LoopGateway;
  let dir: string;
  const openai = () => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-provider-key-1', defaultHeaders: { 'x-gateway-provider': 'deepseek' }, maxRetries: 0 });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tool-loop-output-guardrails-'));
    writeFileSync(join(dir, 'responses.yaml'), 'name: responses\nextends: responses\nconfigure:\n  guardrail: { output: [mask-five, no-nine, no-refusal] }\n');
    loop = await startLoopGateway(() => ({
      pipelines: { dir },
      guardrails: {
        'mask-five': { action: 'redact', checks: [{ type: 'regex', pattern: '\\b5\\b' }] },
        'no-nine': { action: 'deny', checks: [{ type: 'regex', pattern: '\\b9\\b' }] },
        'no-refusal': { action: 'deny', checks: [{ type: 'regex', pattern: 'No tool\\.' }] },
      },
    }));
    ({ fake, gw } = loop);
  });
  afterAll(async () => {
    await loop?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const stream of [false, true])
    it(`${stream ? 'streamed' : 'whole'}: the answer is masked before the caller sees any of it; the model read the tool's result unmasked`, async () => {
      plan.tool = 'add';
      plan.args = { a: 2, b: 3 };
      let text: string;
      let deltas = '';
      if (stream) {
        const events = openai().responses.stream({ model: 'm', input: 'What is 2 + 3?', tools: [MCP_TOOL] });
        events.on('response.output_text.delta', (e) => (deltas += e.delta));
        text = (await events.finalResponse()).output_text;
        expect(deltas).toBe('The tool said: [REDACTED]');
      } else text = (await openai().responses.create({ model: 'm', input: 'What is 2 + 3?', tools: [MCP_TOOL] })).output_text;
      expect(text).toBe('The tool said: [REDACTED]');
      const tool = fake
        .received('POST /chat/completions')
        .at(-1)!
        .json()
        .messages.find((m: Json) => m.role === 'tool');
      expect(tool.content).toBe('5');
    });

  it('whole: a denied answer mid-loop is the 422 of the guardrail, never the answer', async () => {
    plan.tool = 'add';
    plan.args = { a: 4, b: 5 };
    const err: any = await openai()
      .responses.create({ model: 'm', input: 'What is 4 + 5?', tools: [MCP_TOOL] })
      .then(
        () => undefined,
        (e) => e,
      );
    expect(err?.status).toBe(422);
    expect(err?.error).toMatchObject({ code: 'guardrail_failed' });
    expect(JSON.stringify(err?.error)).not.toContain('said: 9');
  });

  it('streamed: a denied FIRST model call is the 422 of the guardrail, as for a plain stream (nothing was written to the caller yet)', async () => {
    // no such tool: the model answers at once ("No tool."), which the no-refusal guardrail denies
    plan.tool = 'missing';
    const stream = openai().responses.stream({ model: 'm', input: 'What is 4 + 5?', tools: [MCP_TOOL] });
    const events: Json[] = [];
    stream.on('event', (event) => events.push(event));
    const err: any = await stream.finalResponse().then(
      () => undefined,
      (e) => e,
    );
    expect(err?.status).toBe(422);
    expect(err?.error).toMatchObject({ code: 'guardrail_failed' });
    expect(events).toEqual([]);
  });

  it('streamed: a denied answer mid-loop ends the stream with the guardrail’s error event, after the tool round and without any of its text', async () => {
    plan.tool = 'add';
    plan.args = { a: 4, b: 5 };
    const res = await openai()
      .responses.create({ model: 'm', input: 'What is 4 + 5?', tools: [MCP_TOOL], stream: true })
      .withResponse();
    const events: Json[] = [];
    for await (const event of res.data) events.push(event);
    const types = events.map((e) => e.type);
    expect(types).toContain('response.mcp_call.completed');
    expect(types).not.toContain('response.output_text.delta');
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'guardrail_failed' });
  });
});
