/**
 * The Messages and Responses APIs over the same conformance cases (./cases/*.ts, format in
 * ./case.ts) as the chat list in conformance.test.ts: each provider's recorded answers,
 * served by its fake, come back through `/v1/messages` (the `@anthropic-ai/sdk`) and
 * `/v1/responses` (the `openai` SDK), whole and streamed:
 * - messages, text: the Messages request equivalent to the chat scenario sends the very body
 *   the chat scenario sends (translated providers) or itself (anthropic); the Message carries
 *   the expected text, stop reason and usage (cache reads apart); the stream follows
 *   Anthropic's event grammar and assembles to the same Message;
 * - messages, tools: tool_use blocks carry the provider's call ids, names and inputs;
 * - responses, text and tools: output_text, function_call items with the provider's call ids,
 *   usage; the stream assembles to the same response;
 * - an upstream rate limit is Anthropic's rate_limit_error for Anthropic's clients.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { FakeUpstream } from '../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { PRIOR_CALL_ID, SMALL_PNG, TIME_TOOL, WEATHER_TOOL, type ConformanceCase, type ExpectedAnswer } from './case.js';

const CASES_DIR = join(dirname(fileURLToPath(import.meta.url)), 'cases');
const CASES: ConformanceCase[] = await Promise.all(
  readdirSync(CASES_DIR)
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map(async (f) => (await import(pathToFileURL(join(CASES_DIR, f)).href)).default as ConformanceCase),
);

const STOP_REASONS: Record<string, string> = { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use', content_filter: 'refusal' };

/** The Messages request equivalent to the chat `text` scenario. */
function messagesText(model: string) {
  return {
    model,
    system: 'You are a terse assistant.',
    messages: [
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: 'What is in this picture?' },
          { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: SMALL_PNG } },
        ],
      },
    ],
    max_tokens: 200,
    temperature: 0.4,
    stop_sequences: ['END'],
  };
}

/** The Messages request of the chat `tools` scenario. */
function messagesTools(model: string) {
  return {
    model,
    system: 'Use the tools.',
    max_tokens: 4096,
    messages: [
      { role: 'user' as const, content: 'What is the weather in Lyon?' },
      { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: PRIOR_CALL_ID, name: 'get_weather', input: { city: 'Lyon' } }] },
      { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: PRIOR_CALL_ID, content: '{"temperature_c":21}' }] },
      { role: 'user' as const, content: 'Now the weather in Paris and the time in London.' },
    ],
    tools: [WEATHER_TOOL, TIME_TOOL].map((t) => ({ name: t.function.name, description: t.function.description, input_schema: t.function.parameters as any })),
    tool_choice: { type: 'auto' as const },
  };
}

/** The Responses request of the chat `tools` scenario. */
function responsesTools(model: string) {
  return {
    model,
    instructions: 'Use the tools.',
    input: [
      { role: 'user' as const, content: 'What is the weather in Lyon?' },
      { type: 'function_call' as const, call_id: PRIOR_CALL_ID, name: 'get_weather', arguments: '{"city":"Lyon"}' },
      { type: 'function_call_output' as const, call_id: PRIOR_CALL_ID, output: '{"temperature_c":21}' },
      { role: 'user' as const, content: 'Now the weather in Paris and the time in London.' },
    ],
    tools: [WEATHER_TOOL, TIME_TOOL].map((t) => ({
      type: 'function' as const,
      name: t.function.name,
      description: t.function.description,
      parameters: t.function.parameters,
      strict: false,
    })),
    tool_choice: 'auto' as const,
  };
}

function anthropicUsageOf(expected: ExpectedAnswer): { input: number; output: number } {
  const cached = Number((expected.usage.prompt_tokens_details as any)?.cached_tokens ?? 0);
  return { input: expected.usage.prompt_tokens - cached, output: expected.usage.completion_tokens };
}

/** The SDK's own additions to what it streamed (parsed outputs), removed. */
function unparsed(value: any): any {
  if (Array.isArray(value)) return value.map(unparsed);
  if (value === null || typeof value !== 'object') return value;
  const out: any = {};
  for (const [k, v] of Object.entries(value)) if (!['parsed', 'parsed_arguments', 'output_parsed', 'parsed_output', 'stop_details'].includes(k)) out[k] = unparsed(v);
  return out;
}

for (const c of CASES) {
  describe(`conformance (Messages and Responses APIs): ${c.provider}`, () => {
    let fake: FakeUpstream;
    let gw: TestGateway;
    let anthropic: Anthropic;
    let openai: OpenAI;

    beforeAll(async () => {
      fake = await new FakeUpstream().start();
      gw = await startGateway({ providers: { [c.provider]: c.settings(fake.url) } });
      const headers = { 'x-gateway-provider': c.provider, ...c.client.headers };
      // the version the case's recorded Anthropic traffic was made with (forwarded as the caller sends it)
      anthropic = new Anthropic({ baseURL: gw.url, apiKey: c.client.apiKey, defaultHeaders: { ...headers, 'anthropic-version': '2023-06-01' }, maxRetries: 0 });
      openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: c.client.apiKey, defaultHeaders: headers, maxRetries: 0 });
    });
    afterAll(async () => {
      await gw?.close();
      await fake?.stop();
    });

    const serve = (scenario: 'text' | 'tools' | 'stream-error', stream: boolean) => {
      fake.on(c.chatRoute(stream), c.reply(scenario, stream));
      return () => fake.received(c.chatRoute(stream)).at(-1)!;
    };

    it('messages, text: the same upstream request as the chat scenario; the expected text, stop reason and usage, whole and streamed', async () => {
      const expected = c.answers.text;
      let sent = serve('text', false);
      const whole = await anthropic.messages.create(messagesText(c.chatModel));
      c.checkHeaders(sent());
      expect(sent().json()).toEqual(c.expectedBody('text', false));
      expect(whole.content).toEqual([{ type: 'text', text: expected.content }]);
      expect(whole.stop_reason).toBe(STOP_REASONS[expected.finish_reason]);
      const usage = anthropicUsageOf(expected);
      expect(whole.usage.input_tokens).toBe(usage.input);
      expect(whole.usage.output_tokens).toBe(usage.output);
      expect(whole.model).toBe(expected.model);

      sent = serve('text', true);
      const stream = anthropic.messages.stream(messagesText(c.chatModel));
      const events: any[] = [];
      stream.on('streamEvent', (e) => events.push(e));
      const final = await stream.finalMessage();
      expect(sent().json()).toEqual(c.expectedBody('text', true));
      expect(unparsed(final)).toMatchObject({ ...unparsed(whole), id: expect.any(String) });
      expect(events[0].type).toBe('message_start');
      expect(events[0].message.usage.input_tokens).toBeGreaterThan(0);
      expect(events.at(-1).type).toBe('message_stop');
      expect(events.filter((e) => e.type === 'content_block_delta').every((e) => e.delta.type === 'text_delta')).toBe(true);
    });

    it('messages, tools: tool_use blocks with the provider call ids, names and inputs, whole and streamed', async () => {
      const expected = c.answers.tools;
      serve('tools', false);
      const whole = await anthropic.messages.create(messagesTools(c.chatModel));
      const uses = whole.content.filter((b: any) => b.type === 'tool_use').map((b: any) => ({ id: b.id, name: b.name, arguments: b.input }));
      expect(uses).toEqual(expected.toolCalls);
      expect(whole.stop_reason).toBe('tool_use');
      serve('tools', true);
      const final = await anthropic.messages.stream(messagesTools(c.chatModel)).finalMessage();
      expect(unparsed(final.content)).toEqual(unparsed(whole.content));
      expect(final.usage.output_tokens).toBe(whole.usage.output_tokens);
      expect(final.usage.input_tokens).toBe(whole.usage.input_tokens);
    });

    it('responses, text: output_text and usage, whole and streamed', async () => {
      const expected = c.answers.text;
      serve('text', false);
      const request = { model: c.chatModel, instructions: 'You are a terse assistant.', input: 'What is in this picture?', max_output_tokens: 200, temperature: 0.4 };
      const whole = await openai.responses.create(request);
      expect(whole.output_text).toBe(expected.content);
      expect(whole.status).toBe(expected.finish_reason === 'length' ? 'incomplete' : 'completed');
      expect(whole.usage).toMatchObject({ input_tokens: expected.usage.prompt_tokens, output_tokens: expected.usage.completion_tokens, total_tokens: expected.usage.total_tokens });
      serve('text', true);
      const final = await openai.responses.stream(request).finalResponse();
      expect(final.output_text).toBe(expected.content);
      expect(final.usage).toEqual(whole.usage);
    });

    it('responses, tools: function_call items with the provider call ids, whole and streamed', async () => {
      const expected = c.answers.tools;
      serve('tools', false);
      const whole = await openai.responses.create(responsesTools(c.chatModel));
      const calls = whole.output.filter((o: any) => o.type === 'function_call').map((o: any) => ({ id: o.call_id, name: o.name, arguments: JSON.parse(o.arguments) }));
      expect(calls).toEqual(expected.toolCalls);
      serve('tools', true);
      const final = await openai.responses.stream(responsesTools(c.chatModel)).finalResponse();
      const streamed = final.output.filter((o: any) => o.type === 'function_call').map((o: any) => ({ id: o.call_id, name: o.name, arguments: JSON.parse(o.arguments) }));
      expect(streamed).toEqual(calls);
    });

    it("errors: an upstream rate limit is Anthropic's rate_limit_error for Anthropic's clients", async () => {
      fake.on(c.chatRoute(false), c.errors.rateLimit);
      const err: any = await anthropic.messages.create(messagesText(c.chatModel)).catch((e) => e);
      expect(err).toBeInstanceOf(Anthropic.RateLimitError);
      expect(err.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
      expect(err.headers.get('retry-after')).toBe(c.rateLimitRetryAfter);
      expect(JSON.stringify(err.error)).not.toContain(c.client.apiKey);
    });
  });
}
