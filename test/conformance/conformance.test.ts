/**
 * One conformance list that every translated provider runs: the same tests for each.
 *
 * Adding a provider: write test/conformance/cases/<provider>.ts that default-exports a
 * `ConformanceCase` (the format is documented in ./case.ts): the gateway settings pointing
 * the provider at a fake, the route and headers its calls must use, the exact translated
 * body of each scenario request, the fake's recorded answers (test/fixtures/<provider>/),
 * and the OpenAI answers expected. Every file in cases/ is picked up here.
 *
 * Each case runs, end to end through the `openai` SDK:
 * - chat text / tools / json, whole and streamed: outbound request (route, headers, body);
 *   the chat.completion shape; the stream reassembled equals the whole answer (tool calls,
 *   finish reason, usage included); OpenAI's chunk rules (role first, a tool call's first
 *   delta carries id/type/name and later ones only index and argument text, tool indexes
 *   0..n-1 in order, arguments split over several deltas, text before the calls);
 * - legacy completions through chat, whole and streamed;
 * - embeddings (float and the SDK's default base64) where served;
 * - upstream errors mapped to the contract (401, 404 model_not_found, 429 + Retry-After,
 *   400 content_policy_violation, overload 502), and a failure after the first byte ending the
 *   stream with one error event and no [DONE];
 * - operations the provider does not serve: 400 naming the provider and the operation.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { FakeUpstream } from '../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { scenarioRequest, type ConformanceCase, type ErrorScenario, type ExpectedAnswer, type Scenario } from './case.js';

const CASES_DIR = join(dirname(fileURLToPath(import.meta.url)), 'cases');
const CASES: ConformanceCase[] = await Promise.all(
  readdirSync(CASES_DIR)
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map(async (f) => (await import(pathToFileURL(join(CASES_DIR, f)).href)).default as ConformanceCase),
);

interface Reassembled {
  ids: Set<string>;
  models: Set<string>;
  objects: Set<string>;
  content: string | null;
  toolCalls: Array<{ id: string; type: string; name: string; arguments: string }>;
  finish_reason: string | null;
  usage: unknown;
  /** Kinds of deltas in order of arrival ('text' | 'tool:<index>'). */
  order: string[];
  argDeltas: number[];
  problems: string[];
  firstRole: string | undefined;
}

/** Rebuilds a chat answer from SDK chunks, noting every break of OpenAI's chunk rules. */
function reassemble(chunks: any[]): Reassembled {
  const out: Reassembled = {
    ids: new Set(),
    models: new Set(),
    objects: new Set(),
    content: null,
    toolCalls: [],
    finish_reason: null,
    usage: undefined,
    order: [],
    argDeltas: [],
    problems: [],
    firstRole: undefined,
  };
  for (const chunk of chunks) {
    out.ids.add(chunk.id);
    out.models.add(chunk.model);
    out.objects.add(chunk.object);
    if (chunk.usage) out.usage = chunk.usage;
    for (const choice of chunk.choices ?? []) {
      if (choice.index !== 0) out.problems.push(`choice index ${choice.index}`);
      const delta = choice.delta ?? {};
      if (out.firstRole === undefined) out.firstRole = delta.role ?? '(none)';
      if (typeof delta.content === 'string' && delta.content !== '') {
        out.content = (out.content ?? '') + delta.content;
        out.order.push('text');
      }
      for (const tc of delta.tool_calls ?? []) {
        const known = out.toolCalls[tc.index];
        if (!known) {
          if (tc.index !== out.toolCalls.length) out.problems.push(`tool index ${tc.index} appeared before ${out.toolCalls.length}`);
          if (!tc.id || tc.type !== 'function' || !tc.function?.name) out.problems.push(`first delta of tool ${tc.index} lacks id/type/name`);
          out.toolCalls[tc.index] = { id: tc.id, type: tc.type, name: tc.function?.name, arguments: tc.function?.arguments ?? '' };
          out.argDeltas[tc.index] = tc.function?.arguments ? 1 : 0;
        } else {
          if (tc.id !== undefined || tc.type !== undefined || tc.function?.name !== undefined) out.problems.push(`later delta of tool ${tc.index} repeats id/type/name`);
          known.arguments += tc.function?.arguments ?? '';
          out.argDeltas[tc.index] = (out.argDeltas[tc.index] ?? 0) + 1;
        }
        out.order.push(`tool:${tc.index}`);
      }
      if (choice.finish_reason) {
        if (out.finish_reason) out.problems.push('finish_reason sent twice');
        out.finish_reason = choice.finish_reason;
      }
    }
  }
  return out;
}

function parsedArgs(text: string): unknown {
  return JSON.parse(text);
}

/** The whole answer's content compared as the scenario says (JSON parsed for the json scenario). */
function expectContent(actual: string | null | undefined, expected: ExpectedAnswer, json: boolean): void {
  if (json) expect(JSON.parse(actual ?? '')).toEqual(JSON.parse(expected.content ?? ''));
  else expect(actual ?? null).toBe(expected.content);
}

async function readSse(url: string, init: { headers: Record<string, string>; body: unknown }): Promise<string[]> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...init.headers }, body: JSON.stringify(init.body) });
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice(6));
}

const ERROR_EXPECTATIONS: Record<ErrorScenario, { status: number; type: string; code: string }> = {
  invalidKey: { status: 401, type: 'authentication_error', code: 'invalid_api_key' },
  unknownModel: { status: 404, type: 'provider_error', code: 'model_not_found' },
  rateLimit: { status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded' },
  contentPolicy: { status: 400, type: 'provider_error', code: 'content_policy_violation' },
  overload: { status: 502, type: 'provider_error', code: 'provider_error' },
};

for (const c of CASES) {
  describe(`conformance: ${c.provider}`, () => {
    let fake: FakeUpstream;
    let gw: TestGateway;
    let client: OpenAI;
    const headers = () => ({ 'x-gateway-provider': c.provider, ...c.client.headers });

    beforeAll(async () => {
      fake = await new FakeUpstream().start();
      gw = await startGateway({ providers: { [c.provider]: c.settings(fake.url) } });
      client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: c.client.apiKey, defaultHeaders: headers(), maxRetries: 0 });
    });
    afterAll(async () => {
      await gw?.close();
      await fake?.stop();
    });

    /** Serves the scenario on the chat route and returns the request the fake then received. */
    function serve(scenario: Scenario | 'stream-error', stream: boolean) {
      const route = c.chatRoute(stream);
      fake.on(route, c.reply(scenario, stream));
      return () => {
        const got = fake.received(route);
        expect(got.length, `the fake received a call on ${route}`).toBeGreaterThan(0);
        return got.at(-1)!;
      };
    }

    async function whole(scenario: Exclude<Scenario, 'completion'>) {
      const sent = serve(scenario, false);
      const answer: any = await client.chat.completions.create(scenarioRequest(scenario, c.chatModel) as any);
      const req = sent();
      c.checkHeaders(req);
      expect(req.json()).toEqual(c.expectedBody(scenario, false));
      return answer;
    }

    async function streamed(scenario: Exclude<Scenario, 'completion'>) {
      const sent = serve(scenario, true);
      const stream = (await client.chat.completions.create({
        ...(scenarioRequest(scenario, c.chatModel) as any),
        stream: true,
        stream_options: { include_usage: true },
      })) as unknown as AsyncIterable<any>;
      const chunks: any[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      const req = sent();
      c.checkHeaders(req);
      expect(req.json()).toEqual(c.expectedBody(scenario, true));
      return reassemble(chunks);
    }

    function checkWhole(answer: any, expected: ExpectedAnswer, json = false) {
      expect(answer.object).toBe('chat.completion');
      expect(typeof answer.id).toBe('string');
      expect(answer.id.length).toBeGreaterThan(0);
      expect(Number.isInteger(answer.created)).toBe(true);
      expect(answer.model).toBe(expected.model);
      expect(answer.choices).toHaveLength(1);
      const choice = answer.choices[0];
      expect(choice.index).toBe(0);
      expect(choice.logprobs).toBeNull();
      expect(choice.finish_reason).toBe(expected.finish_reason);
      expect(choice.message.role).toBe('assistant');
      expectContent(choice.message.content, expected, json);
      const calls = (choice.message.tool_calls ?? []).map((t: any) => ({ id: t.id, type: t.type, name: t.function.name, arguments: parsedArgs(t.function.arguments) }));
      expect(calls).toEqual((expected.toolCalls ?? []).map((t) => ({ id: t.id, type: 'function', name: t.name, arguments: t.arguments })));
      expect(answer.usage).toEqual(expected.usage);
    }

    function checkStreamMatches(r: Reassembled, answer: any, json = false) {
      expect(r.problems).toEqual([]);
      expect(r.objects).toEqual(new Set(['chat.completion.chunk']));
      expect(r.ids.size).toBe(1);
      expect([...r.ids][0]).not.toBe('');
      expect(r.models).toEqual(new Set([answer.model]));
      expect(r.firstRole).toBe('assistant');
      const message = answer.choices[0].message;
      if (json) expect(JSON.parse(r.content ?? '')).toEqual(JSON.parse(message.content));
      else expect(r.content).toBe(message.content);
      expect(r.toolCalls.map((t) => ({ ...t, arguments: parsedArgs(t.arguments) }))).toEqual(
        (message.tool_calls ?? []).map((t: any) => ({ id: t.id, type: t.type, name: t.function.name, arguments: parsedArgs(t.function.arguments) })),
      );
      expect(r.finish_reason).toBe(answer.choices[0].finish_reason);
      expect(r.usage).toEqual(answer.usage);
    }

    it('chat: translates the request and answers a chat.completion', async () => {
      checkWhole(await whole('text'), c.answers.text);
    });

    it('chat: the stream, reassembled, equals the whole answer', async () => {
      const answer = await whole('text');
      checkStreamMatches(await streamed('text'), answer);
    });

    it('tools: tool definitions, tool history and tool choice go upstream; tool calls come back with their ids', async () => {
      const answer = await whole('tools');
      checkWhole(answer, c.answers.tools);
      expect(answer.choices[0].message.tool_calls.length).toBeGreaterThanOrEqual(2);
    });

    it('tools: streamed tool calls keep OpenAI delta rules and equal the whole answer', async () => {
      const answer = await whole('tools');
      const r = await streamed('tools');
      checkStreamMatches(r, answer);
      // several calls, numbered 0..n-1 in order of appearance
      expect(r.toolCalls.length).toBeGreaterThanOrEqual(2);
      expect([...new Set(r.order.filter((o) => o.startsWith('tool:')))]).toEqual(r.toolCalls.map((_, i) => `tool:${i}`));
      // text came before the first tool call
      expect(r.order[0]).toBe('text');
      // arguments arrived split over several deltas (or in one delta after the first, for providers that send them whole)
      for (const count of r.argDeltas) {
        if (c.wholeToolArguments) expect(count).toBe(1);
        else expect(count).toBeGreaterThanOrEqual(2);
      }
    });

    it('json: response_format json_schema answers JSON text, whole and streamed', async () => {
      const answer = await whole('json');
      checkWhole(answer, c.answers.json, true);
      checkStreamMatches(await streamed('json'), answer, true);
    });

    it('completions: a legacy completion is served through chat, whole and streamed', async () => {
      let sent = serve('completion', false);
      const answer: any = await client.completions.create(scenarioRequest('completion', c.chatModel) as any);
      let req = sent();
      c.checkHeaders(req);
      expect(req.json()).toEqual(c.expectedBody('completion', false));
      expect(answer.object).toBe('text_completion');
      expect(answer.model).toBe(c.answers.text.model);
      expect(answer.choices).toEqual([{ text: c.answers.completion.text, index: 0, logprobs: null, finish_reason: c.answers.completion.finish_reason }]);
      expect(answer.usage.total_tokens).toBe(answer.usage.prompt_tokens + answer.usage.completion_tokens);

      sent = serve('completion', true);
      const stream = await client.completions.create({ ...(scenarioRequest('completion', c.chatModel) as any), stream: true, stream_options: { include_usage: true } });
      let text = '';
      let finish: string | null = null;
      let usage: unknown;
      const objects = new Set<string>();
      for await (const chunk of stream as any) {
        objects.add(chunk.object);
        for (const choice of chunk.choices) {
          text += choice.text ?? '';
          finish = choice.finish_reason ?? finish;
        }
        if (chunk.usage) usage = chunk.usage;
      }
      req = sent();
      expect(req.json()).toEqual(c.expectedBody('completion', true));
      expect(objects).toEqual(new Set(['text_completion']));
      expect(text).toBe(answer.choices[0].text);
      expect(finish).toBe(answer.choices[0].finish_reason);
      expect(usage).toEqual(answer.usage);
    });

    if (c.embeddings) {
      const e = c.embeddings;
      it('embeddings: floats and the SDK default (base64) both decode to the provider vectors', async () => {
        fake.on(e.route, e.reply);
        const before = fake.received(e.route).length;
        const floats = await client.embeddings.create({ model: e.model, input: ['first text', 'second text'], encoding_format: 'float' });
        const calls = fake.received(e.route).slice(before);
        // fanned-out calls run concurrently: compare them in a stable order
        const byText = (list: unknown[]) => [...list].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
        expect(byText(calls.map((r) => r.json()))).toEqual(byText(e.expectedBodies));
        for (const r of calls) c.checkHeaders(r);
        expect(floats.object).toBe('list');
        expect(floats.model).toBe(e.model);
        expect(floats.data.map((d) => d.index)).toEqual([0, 1]);
        expect(floats.data.map((d) => d.embedding)).toEqual(e.vectors);
        expect(floats.usage).toEqual({ prompt_tokens: e.promptTokens, total_tokens: e.promptTokens });
        const decoded = await client.embeddings.create({ model: e.model, input: ['first text', 'second text'] });
        decoded.data.forEach((d, i) => {
          expect(d.embedding).toHaveLength(e.vectors[i]!.length);
          d.embedding.forEach((v, j) => expect(v).toBeCloseTo(e.vectors[i]![j]!, 5));
        });
      });
    }

    for (const scenario of Object.keys(ERROR_EXPECTATIONS) as ErrorScenario[]) {
      it(`errors: upstream ${scenario} maps to the contract's ${ERROR_EXPECTATIONS[scenario].code}`, async () => {
        fake.on(c.chatRoute(false), c.errors[scenario]);
        const err: any = await client.chat.completions.create(scenarioRequest('text', c.chatModel) as any).catch((e) => e);
        const want = ERROR_EXPECTATIONS[scenario];
        expect(err).toBeInstanceOf(OpenAI.APIError);
        expect(err.status).toBe(want.status);
        expect(err.error).toMatchObject({ type: want.type, code: want.code, provider: c.provider });
        expect(typeof err.error.message).toBe('string');
        expect(err.error.message).not.toContain(c.client.apiKey);
        if (scenario === 'rateLimit') expect(err.headers.get('retry-after')).toBe(c.rateLimitRetryAfter);
      });
    }

    it('streams: a failure after the first byte ends the stream with one error event and no [DONE]', async () => {
      serve('stream-error', true);
      const events = await readSse(`${gw.url}/v1/chat/completions`, {
        headers: { ...headers(), authorization: `Bearer ${c.client.apiKey}` },
        body: { ...scenarioRequest('text', c.chatModel), stream: true },
      });
      expect(events).not.toContain('[DONE]');
      const last = JSON.parse(events.at(-1)!);
      expect(last).toMatchObject({ status: 'failure', error: { code: c.streamErrorCode, provider: c.provider } });
      const texts = events.slice(0, -1).map((e) => JSON.parse(e).choices?.[0]?.delta?.content ?? '');
      expect(texts.join('')).not.toBe('');
      // the SDK surfaces it as an error, not as a short answer
      const stream = (await client.chat.completions.create({ ...(scenarioRequest('text', c.chatModel) as any), stream: true })) as unknown as AsyncIterable<any>;
      const failure = await (async () => {
        for await (const _chunk of stream) {
          // reading until the error
        }
      })().catch((e) => e);
      expect(failure).toBeInstanceOf(OpenAI.APIError);
    });

    for (const op of c.unsupported) {
      it(`unsupported: ${op} answers 400 naming ${c.provider} and the operation`, async () => {
        const calls: Record<string, () => Promise<unknown>> = {
          embeddings: () => client.embeddings.create({ model: 'm', input: 'x', encoding_format: 'float' }),
          'images.generations': () => client.images.generate({ model: 'dall-e-3', prompt: 'a cat' }),
          'audio.speech': () => client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'hi' }),
          'models.list': () => client.models.list(),
        };
        const before = fake.requests.length;
        const err: any = await calls[op]!().catch((e) => e);
        expect(err).toBeInstanceOf(OpenAI.BadRequestError);
        expect(err.error).toMatchObject({ type: 'invalid_request_error', param: 'x-gateway-provider' });
        expect(err.error.message).toContain(c.provider);
        expect(err.error.message).toContain(op);
        expect(fake.requests.length).toBe(before);
      });
    }
  });
}
