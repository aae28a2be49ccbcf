/**
 * Kept responses belong to the credential that made them, through the official `openai` SDK
 * against a fake upstream: an Ollama that repeats one chat id gets ids of the gateway's own for
 * every answer (whole and streamed); another key's id is 404 on every route and as
 * previous_response_id, exactly as an unknown one; a provider that repeats its own response id
 * for two keys keeps two responses; DELETE of a response openai keeps reaches openai, with the
 * caller's key, and openai's failure reaches the caller. On SQLite, then PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { FakeUpstream, type ReceivedRequest } from '../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { fixtureJson } from '../helpers/fixtures.js';
import { dropSharedState, sharedStoreConfig } from '../helpers/shared-stores.js';

const KEY_A = 'sk-tenant-a-0001';
const KEY_B = 'sk-tenant-b-0002';
const MINTED = /^resp_[0-9a-f]{48}$/;
/** The one chat id this Ollama ever answers with. */
const CHAT_ID = 'chatcmpl-7';
const CHAT_PATH = 'POST /ollama/v1/chat/completions';

let fake: FakeUpstream;

function sdk(gw: TestGateway, provider: string, key: string) {
  return new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, defaultHeaders: { 'x-gateway-provider': provider }, maxRetries: 0 });
}

/** The text of the last user message of a chat request. */
function lastUserText(req: ReceivedRequest): string {
  const messages = req.json().messages as Array<{ role: string; content: string }>;
  return String(messages.filter((m) => m.role === 'user').at(-1)?.content ?? '');
}

/** Ollama answering every chat, whole or streamed, with the same id and an echo of the last user message. */
function repeatingOllama(): void {
  fake.on(CHAT_PATH, (req, res) => {
    const text = `echo: ${lastUserText(req)}`;
    if (req.json().stream === true) {
      const chunk = (delta: object, finish: string | null, usage?: object) =>
        `data: ${JSON.stringify({ id: CHAT_ID, object: 'chat.completion.chunk', created: 1, model: 'llama3', choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(chunk({ role: 'assistant', content: text }, null) + chunk({}, 'stop', { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }) + 'data: [DONE]\n\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: CHAT_ID,
        object: 'chat.completion',
        created: 1,
        model: 'llama3',
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
      }),
    );
  });
}

/** The error an SDK call ends with. */
async function failure(call: Promise<unknown>): Promise<any> {
  return call.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (err) => err,
  );
}

/** What a 404 says, less the id it names. */
function notFoundShape(err: any, id: string): unknown {
  return { status: err.status, type: err.error?.type, code: err.error?.code, param: err.error?.param, message: String(err.error?.message).replace(id, '<id>') };
}

beforeAll(async () => {
  fake = await new FakeUpstream().start();
});
afterAll(async () => {
  await fake?.stop();
});

function suite(name: string, storage: () => Record<string, unknown>, cleanup: () => Promise<void>) {
  describe(`responses of two keys (${name})`, () => {
    let gw: TestGateway;
    beforeAll(async () => {
      gw = await startGateway({ providers: { openai: { baseUrl: `${fake.url}/oai` }, ollama: { baseUrl: `${fake.url}/ollama/v1` } }, ...storage() });
    });
    afterAll(async () => {
      await gw?.close();
      await cleanup();
    });

    it('an upstream that repeats its chat id: each answer gets an id of its own, and each key reads only its own', async () => {
      repeatingOllama();
      const a = sdk(gw, 'ollama', KEY_A);
      const b = sdk(gw, 'ollama', KEY_B);
      const mine = await a.responses.create({ model: 'llama3', input: 'the secret of A' });
      const theirs = await b.responses.create({ model: 'llama3', input: 'the prompt of B' });
      expect(mine.id).toMatch(MINTED);
      expect(theirs.id).toMatch(MINTED);
      expect(mine.id).not.toBe(theirs.id);
      for (const item of [...mine.output, ...theirs.output]) expect(item.id).toMatch(/^[a-z]+_[0-9a-f]{48}(_\d+)?$/);
      expect(mine.output_text).toBe('echo: the secret of A');
      expect(theirs.output_text).toBe('echo: the prompt of B');

      expect((await a.responses.retrieve(mine.id)).output_text).toBe('echo: the secret of A');
      expect((await b.responses.retrieve(theirs.id)).output_text).toBe('echo: the prompt of B');
      expect((await a.responses.inputItems.list(mine.id)).data.map((i: any) => i.content[0].text)).toEqual(['the secret of A']);
      expect((await b.responses.inputItems.list(theirs.id)).data.map((i: any) => i.content[0].text)).toEqual(['the prompt of B']);

      // streamed: the same repeated chat id, two ids again
      const streamedA = await a.responses.stream({ model: 'llama3', input: 'streamed by A' }).finalResponse();
      const streamedB = await b.responses.stream({ model: 'llama3', input: 'streamed by B' }).finalResponse();
      expect(streamedA.id).toMatch(MINTED);
      expect(streamedB.id).toMatch(MINTED);
      expect(new Set([mine.id, theirs.id, streamedA.id, streamedB.id]).size).toBe(4);
      expect((await a.responses.retrieve(streamedA.id)).output_text).toBe('echo: streamed by A');
      expect((await b.responses.retrieve(streamedB.id)).output_text).toBe('echo: streamed by B');
      expect(notFoundShape(await failure(b.responses.retrieve(streamedA.id)), streamedA.id)).toMatchObject({ status: 404, code: 'not_found' });
    });

    it("another key's id answers 404 not_found on every route and as previous_response_id, exactly as an unknown id, and changes nothing", async () => {
      repeatingOllama();
      const a = sdk(gw, 'ollama', KEY_A);
      const b = sdk(gw, 'ollama', KEY_B);
      const mine = await a.responses.create({ model: 'llama3', input: 'only for A' });
      const unknown = `resp_${'0'.repeat(48)}`;
      const before = fake.requests.length;
      const calls: Array<[string, (id: string) => Promise<unknown>]> = [
        ['retrieve', (id) => b.responses.retrieve(id)],
        ['input_items', (id) => b.responses.inputItems.list(id)],
        ['cancel', (id) => b.responses.cancel(id)],
        ['delete', (id) => b.responses.delete(id)],
      ];
      for (const [what, call] of calls) {
        const foreign = await failure(call(mine.id));
        expect(foreign, what).toBeInstanceOf(OpenAI.NotFoundError);
        expect(notFoundShape(foreign, mine.id), what).toEqual(notFoundShape(await failure(call(unknown)), unknown));
        expect(foreign.error, what).toMatchObject({ type: 'invalid_request_error', code: 'not_found', param: 'response_id' });
      }
      const foreignPrevious = await failure(b.responses.create({ model: 'llama3', input: 'continue', previous_response_id: mine.id }));
      const unknownPrevious = await failure(b.responses.create({ model: 'llama3', input: 'continue', previous_response_id: unknown }));
      expect(foreignPrevious).toBeInstanceOf(OpenAI.NotFoundError);
      expect(foreignPrevious.error).toMatchObject({ code: 'not_found', param: 'previous_response_id' });
      expect(notFoundShape(foreignPrevious, mine.id)).toEqual(notFoundShape(unknownPrevious, unknown));
      // nothing went upstream, and A's response is whole
      expect(fake.requests.length).toBe(before);
      expect((await a.responses.retrieve(mine.id)).output_text).toBe('echo: only for A');
      expect((await a.responses.inputItems.list(mine.id)).data.map((i: any) => i.content[0].text)).toEqual(['only for A']);

      // A's own conversation goes on with A's turns only
      await a.responses.create({ model: 'llama3', input: 'and then?', previous_response_id: mine.id });
      expect(fake.received(CHAT_PATH).at(-1)!.json().messages).toEqual([
        { role: 'user', content: 'only for A' },
        { role: 'assistant', content: 'echo: only for A' },
        { role: 'user', content: 'and then?' },
      ]);
    });

    it('a provider that answers two keys with the same response id: two kept responses, the second never overwrites the first', async () => {
      const answer = fixtureJson('openai', 'responses');
      const repeated = 'resp_repeated_by_the_provider';
      fake.on('POST /oai/responses', (req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ...answer, id: repeated, instructions: `for ${String(req.json().input)}` }));
      });
      const a = sdk(gw, 'openai', KEY_A);
      const b = sdk(gw, 'openai', KEY_B);
      expect((await a.responses.create({ model: 'gpt-4.1', input: 'A asks' })).id).toBe(repeated);
      expect((await b.responses.create({ model: 'gpt-4.1', input: 'B asks' })).id).toBe(repeated);
      const before = fake.requests.length;
      expect((await a.responses.retrieve(repeated)).instructions).toBe('for A asks');
      expect((await b.responses.retrieve(repeated)).instructions).toBe('for B asks');
      expect((await a.responses.inputItems.list(repeated)).data.map((i: any) => i.content[0].text)).toEqual(['A asks']);
      expect((await b.responses.inputItems.list(repeated)).data.map((i: any) => i.content[0].text)).toEqual(['B asks']);
      // answered from the store, not by the provider
      expect(fake.requests.length).toBe(before);
    });

    it('DELETE of a response openai keeps deletes it at openai too, with the caller key; a 404 there is fine', async () => {
      const answer = fixtureJson('openai', 'responses');
      const a = sdk(gw, 'openai', KEY_A);
      const id = `resp_native_delete_${name}`;
      fake.on('POST /oai/responses', { json: { ...answer, id } });
      await a.responses.create({ model: 'gpt-4.1', input: 'to delete' });
      fake.on(`DELETE /oai/responses/${id}`, { json: { id, object: 'response.deleted', deleted: true } });
      expect(await a.responses.delete(id)).toEqual({ id, object: 'response.deleted', deleted: true });
      const sent = fake.received(`DELETE /oai/responses/${id}`);
      expect(sent).toHaveLength(1);
      expect(sent[0]!.headers.authorization).toBe(`Bearer ${KEY_A}`);
      // no longer kept by the gateway: a GET goes to openai, which has it no more
      fake.on(`GET /oai/responses/${id}`, { status: 404, json: { error: { message: `No response with id '${id}' found.`, type: 'invalid_request_error', code: null } } });
      expect(await failure(a.responses.retrieve(id))).toBeInstanceOf(OpenAI.NotFoundError);
      expect(fake.received(`GET /oai/responses/${id}`)).toHaveLength(1);

      const gone = `resp_native_gone_${name}`;
      fake.on('POST /oai/responses', { json: { ...answer, id: gone } });
      await a.responses.create({ model: 'gpt-4.1', input: 'gone at openai already' });
      fake.on(`DELETE /oai/responses/${gone}`, { status: 404, json: { error: { message: 'not found', type: 'invalid_request_error', code: null } } });
      expect(await a.responses.delete(gone)).toEqual({ id: gone, object: 'response.deleted', deleted: true });
      expect(fake.received(`DELETE /oai/responses/${gone}`)).toHaveLength(1);
      fake.on(`GET /oai/responses/${gone}`, { status: 404, json: { error: { message: 'not found', type: 'invalid_request_error', code: null } } });
      expect(await failure(a.responses.retrieve(gone))).toBeInstanceOf(OpenAI.NotFoundError);
    });

    it("a provider's 5xx on DELETE is an error to the caller, and the response stays kept", async () => {
      const answer = fixtureJson('openai', 'responses');
      const a = sdk(gw, 'openai', KEY_A);
      const id = `resp_native_failing_${name}`;
      fake.on('POST /oai/responses', { json: { ...answer, id } });
      await a.responses.create({ model: 'gpt-4.1', input: 'keep me' });
      fake.on(`DELETE /oai/responses/${id}`, { status: 500, json: { error: { message: 'The server had an error.', type: 'server_error', code: null } } });
      const err = await failure(a.responses.delete(id));
      expect(err).toBeInstanceOf(OpenAI.APIError);
      expect(err.status).toBeGreaterThanOrEqual(500);
      expect(err.error).toMatchObject({ provider: 'openai' });
      expect(fake.received(`DELETE /oai/responses/${id}`).length).toBeGreaterThanOrEqual(1);
      expect(fake.received(`DELETE /oai/responses/${id}`).every((r) => r.headers.authorization === `Bearer ${KEY_A}`)).toBe(true);
      const before = fake.requests.length;
      expect((await a.responses.retrieve(id)).id).toBe(id);
      expect(fake.requests.length).toBe(before);

      // sent to another provider, it cannot reach openai: a clear 400, nothing deleted
      const elsewhere = await failure(sdk(gw, 'ollama', KEY_A).responses.delete(id));
      expect(elsewhere).toBeInstanceOf(OpenAI.BadRequestError);
      expect(elsewhere.error).toMatchObject({ type: 'invalid_request_error', param: 'x-gateway-provider' });
      expect((await a.responses.retrieve(id)).id).toBe(id);
    });
  });
}

suite(
  'SQLite',
  () => ({}),
  async () => undefined,
);

const schema = `responses_owners_${process.pid}_${Date.now()}`;
suite(
  'PostgreSQL',
  () => sharedStoreConfig('postgres', '', schema),
  () => dropSharedState('postgres', '', schema),
);
