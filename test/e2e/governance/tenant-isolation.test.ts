/**
 * Tenant isolation on the data plane with keys the gateway holds: nothing one gateway key sends
 * or stores reaches another, and no key spends a held credential beyond what it may use. Found by
 * a black-box audit of the built gateway; each case failed before its fix:
 * - the answer cache was keyed by the provider key only, so every key of a held credential shared
 *   answers (a HIT told another tenant what was asked);
 * - a caller's x-gateway-config naming a held credential sent any model with it, whatever the
 *   key's `models` or its team's;
 * - files, batches and fine-tuning jobs a provider keeps on a held key were one account for every
 *   tenant: listed, read, cancelled, deleted and built upon by any of them;
 * - Responses API ids not kept for a caller went to the provider on the held key (another
 *   tenant's response read, deleted, or continued with previous_response_id);
 * - files and batches the gateway keeps were scoped by the provider key of the headers, which
 *   gateway keys on held credentials (and anonymous callers) do not send: one shared scope;
 * - a gateway-run batch's lines with a gateway key were refused as credentials over plain HTTP.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { request } from 'undici';
import { LoopbackFake } from '../../helpers/loopback-server.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { issueKey } from '../../helpers/gateway-keys.js';
import { chatBody, CHAT, post, type Answer } from '../../helpers/routing-harness.js';
import { jsonl } from '../../helpers/batch-fakes.js';

const ADMIN = 'admin-token-tenant-isolation-0123456789';
const HELD = 'sk-held-openai-isolation-0001';
const CONFIG = { 'x-gateway-config': JSON.stringify({ credential: 'openai-prod' }) };

interface Seen {
  method: string;
  path: string;
  authorization?: string;
  body: string;
}

/**
 * One OpenAI account, as a provider keeps it for one key: chat, files, batches, fine-tuning jobs
 * and responses, every object visible to every request made with that key.
 */
class ProviderAccount extends LoopbackFake {
  readonly seen: Seen[] = [];
  private n = 0;
  private readonly files = new Map<string, { object: Record<string, unknown>; content: string }>();
  private readonly batches = new Map<string, Record<string, unknown>>();
  private readonly jobs = new Map<string, Record<string, unknown>>();
  private readonly responses = new Map<string, Record<string, unknown>>();

  /** Requests whose path names `id`. */
  naming(id: string): Seen[] {
    return this.seen.filter((s) => s.path.includes(id) || s.body.includes(id));
  }

  /** Ends a batch: completed, with an output file of one line. */
  complete(batchId: string): string {
    const batch = this.batches.get(batchId)!;
    const out = `file-out-${++this.n}`;
    this.files.set(out, { object: this.fileObject(out, 'output.jsonl', 'batch_output', 10), content: '{"custom_id":"1"}\n' });
    Object.assign(batch, { status: 'completed', output_file_id: out });
    return out;
  }

  private fileObject(id: string, filename: string, purpose: string, bytes: number) {
    return { id, object: 'file', bytes, created_at: 1732000000 + this.n, filename, purpose, status: 'processed', status_details: null };
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '/').split('?')[0]!;
    this.seen.push({ method: req.method ?? 'GET', path, authorization: req.headers.authorization, body: raw });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const missing = () => send(404, { error: { message: `No such object: ${path}`, type: 'invalid_request_error', code: null } });
    const body = raw.startsWith('{') ? (JSON.parse(raw) as Record<string, any>) : {};
    const route = `${req.method} ${path}`;
    let m: RegExpMatchArray | null;
    if (route === 'POST /v1/chat/completions') {
      const asked = body.messages?.at(-1)?.content;
      return send(200, {
        id: `chatcmpl-${++this.n}`,
        object: 'chat.completion',
        created: 1,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: `answer ${this.n} to ${asked}` }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
      });
    }
    if (route === 'POST /v1/responses') {
      const id = `resp_account_${++this.n}`;
      const response = {
        id,
        object: 'response',
        created_at: 1,
        status: body.background ? 'queued' : 'completed',
        model: body.model,
        output: body.background
          ? []
          : [
              {
                type: 'message',
                id: `msg_${this.n}`,
                role: 'assistant',
                status: 'completed',
                content: [{ type: 'output_text', text: `about ${JSON.stringify(body.input)}`, annotations: [] }],
              },
            ],
        usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
      };
      this.responses.set(id, response);
      return send(200, response);
    }
    if ((m = path.match(/^\/v1\/responses\/([^/]+)$/))) {
      const response = this.responses.get(m[1]!);
      if (!response) return missing();
      if (req.method === 'DELETE') {
        this.responses.delete(m[1]!);
        return send(200, { id: m[1], object: 'response', deleted: true });
      }
      return send(200, response);
    }
    if (route === 'POST /v1/files') {
      const id = `file-${++this.n}`;
      const filename = /filename="([^"]+)"/.exec(raw)?.[1] ?? 'upload';
      const object = this.fileObject(id, filename, 'batch', raw.length);
      this.files.set(id, { object, content: raw });
      return send(200, object);
    }
    if (route === 'GET /v1/files') return send(200, { object: 'list', data: [...this.files.values()].reverse().map((f) => f.object), has_more: false });
    if ((m = path.match(/^\/v1\/files\/([^/]+)(\/content)?$/))) {
      const file = this.files.get(m[1]!);
      if (!file) return missing();
      if (req.method === 'DELETE') {
        this.files.delete(m[1]!);
        return send(200, { id: m[1], object: 'file', deleted: true });
      }
      if (m[2]) {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.end(file.content);
        return;
      }
      return send(200, file.object);
    }
    if (route === 'POST /v1/batches') {
      const id = `batch_${++this.n}`;
      const batch = {
        id,
        object: 'batch',
        endpoint: body.endpoint,
        input_file_id: body.input_file_id,
        completion_window: '24h',
        status: 'validating',
        output_file_id: null,
        error_file_id: null,
        created_at: this.n,
      };
      this.batches.set(id, batch);
      return send(200, batch);
    }
    if (route === 'GET /v1/batches') return send(200, { object: 'list', data: [...this.batches.values()].reverse(), has_more: false });
    if ((m = path.match(/^\/v1\/batches\/([^/]+)(\/cancel)?$/))) {
      const batch = this.batches.get(m[1]!);
      if (!batch) return missing();
      if (m[2]) batch.status = 'cancelling';
      return send(200, batch);
    }
    if (route === 'POST /v1/fine_tuning/jobs') {
      const id = `ftjob-${++this.n}`;
      const job = {
        id,
        object: 'fine_tuning.job',
        model: body.model,
        created_at: this.n,
        status: 'queued',
        training_file: body.training_file,
        validation_file: null,
        result_files: [],
        hyperparameters: {},
      };
      this.jobs.set(id, job);
      return send(200, job);
    }
    if (route === 'GET /v1/fine_tuning/jobs') return send(200, { object: 'list', data: [...this.jobs.values()].reverse(), has_more: false });
    if ((m = path.match(/^\/v1\/fine_tuning\/jobs\/([^/]+)(\/cancel|\/events)?$/))) {
      const job = this.jobs.get(m[1]!);
      if (!job) return missing();
      if (m[2] === '/events') return send(200, { object: 'list', data: [], has_more: false });
      if (m[2]) job.status = 'cancelled';
      return send(200, job);
    }
    missing();
  }
}

describe('tenant isolation with keys the gateway holds', () => {
  let account: ProviderAccount;
  let gw: TestGateway;
  /** Team red, limited to the catalogue model gpt-fast (gpt-4o-mini through openai-prod). */
  let alice: string;
  /** Team blue, every model. */
  let carol: string;
  /** Team red (alice's), every model. */
  let dave: string;
  /** Team narrow, whose team may use gpt-fast only. */
  let nina: string;

  const auth = (key: string) => ({ authorization: `Bearer ${key}` });
  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> => {
    const res = await request(`${gw.url}${path}`, {
      method: method as 'GET',
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, headers: res.headers, text, json, events: [], done: false };
  };
  const upload = async (headers: Record<string, string>, content: string): Promise<Answer> => {
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('file', new Blob([content]), 'lines.jsonl');
    const res = await fetch(`${gw.url}/v1/files`, { method: 'POST', headers, body: form });
    const text = await res.text();
    return { status: res.status, headers: {}, text, json: JSON.parse(text), events: [], done: false };
  };
  /** An error answer with the id it names replaced, to compare another's id with an unknown one. */
  const shape = (answer: Answer, id: string) => ({ status: answer.status, body: JSON.parse(answer.text.split(id).join('<id>')) });
  const line = (id: string, model: string) =>
    JSON.stringify({ custom_id: id, method: 'POST', url: '/v1/chat/completions', body: { model, messages: [{ role: 'user', content: id }] } });

  beforeAll(async () => {
    account = await new ProviderAccount().start();
    gw = await startGateway({
      logging: { level: 'warn' },
      auth: { adminToken: ADMIN },
      secrets: { key: 'cd'.repeat(32) },
      providers: { openai: { baseUrl: `${account.url}/v1` } },
      credentials: { 'openai-prod': { provider: 'openai', api_key: HELD } },
      models: {
        'gpt-fast': { targets: [{ credential: 'openai-prod', model: 'gpt-4o-mini' }], cache: { mode: 'simple', max_age: 300 } },
        'openai/*': { credential: 'openai-prod' },
      },
      tenants: {
        organizations: { acme: {}, globex: {} },
        teams: { red: { organization: 'acme' }, blue: { organization: 'globex' }, narrow: { organization: 'globex', models: ['gpt-fast'] } },
      },
    });
    alice = (await issueKey(gw.url, ADMIN, { user: 'alice@acme.example', team: 'red', models: ['gpt-fast'] })).token;
    carol = (await issueKey(gw.url, ADMIN, { user: 'carol@globex.example', team: 'blue' })).token;
    dave = (await issueKey(gw.url, ADMIN, { user: 'dave@acme.example', team: 'red' })).token;
    nina = (await issueKey(gw.url, ADMIN, { user: 'nina@globex.example', team: 'narrow' })).token;
  });
  afterAll(async () => {
    await gw?.close();
    await account?.stop();
  });
  beforeEach(() => {
    account.seen.length = 0;
  });

  it('keeps cached answers to the key that asked: another key, of another team or the same one, is a MISS', async () => {
    const body = { model: 'gpt-fast', messages: [{ role: 'user', content: 'the plan only alice knows' }] };
    const first = await post(gw.url, CHAT, body, auth(alice));
    expect(first.headers['x-gateway-cache-status']).toBe('MISS');
    for (const other of [carol, dave]) {
      const answer = await post(gw.url, CHAT, body, auth(other));
      expect(answer.status).toBe(200);
      expect(answer.headers['x-gateway-cache-status']).toBe('MISS');
      expect(answer.json.id).not.toBe(first.json.id);
    }
    const again = await post(gw.url, CHAT, body, auth(alice));
    expect(again.headers['x-gateway-cache-status']).toBe('HIT');
    expect(again.json).toEqual(first.json);
    expect(account.seen.filter((s) => s.path === '/v1/chat/completions')).toHaveLength(3);
  });

  it("sends through a caller's config naming a held credential only the models a limited key (or team) may use: else 404 as an unknown model", async () => {
    for (const [key, model, config] of [
      [alice, 'gpt-4.1', CONFIG],
      [nina, 'gpt-4.1', CONFIG],
      [alice, 'gpt-4o-mini', { 'x-gateway-config': JSON.stringify({ credential: 'openai-prod', override_params: { model: 'gpt-4.1' } }) }],
    ] as const) {
      const refused = await post(gw.url, CHAT, chatBody({ model }), { ...auth(key), ...config });
      expect(refused.status).toBe(404);
      expect(refused.json.error).toMatchObject({ type: 'provider_error', code: 'model_not_found', param: 'model' });
      expect(refused.text).not.toContain(HELD);
    }
    expect(account.seen).toEqual([]);
    // The model its catalogue model sends with the credential is served; a key of every model sends any.
    const own = await post(gw.url, CHAT, chatBody({ model: 'gpt-4o-mini' }), { ...auth(alice), ...CONFIG });
    expect(own.status).toBe(200);
    const any = await post(gw.url, CHAT, chatBody({ model: 'gpt-4.1' }), { ...auth(carol), ...CONFIG });
    expect(any.status).toBe(200);
    expect(account.seen.map((s) => s.authorization)).toEqual([`Bearer ${HELD}`, `Bearer ${HELD}`]);
  });

  it('refuses a limited key a provider batch through a held credential (its lines name models the gateway cannot check): 403, nothing sent', async () => {
    const refused = await call('POST', '/v1/batches', { ...auth(alice), ...CONFIG }, { input_file_id: 'file-any', endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toMatchObject({ type: 'permission_error', code: 'insufficient_permissions' });
    expect(account.seen).toEqual([]);
  });

  it("keeps files, batches and fine-tuning jobs a provider holds on a held key to the key that made them: another key's id is an unknown one", async () => {
    const carolHeaders = { ...auth(carol), ...CONFIG };
    const daveHeaders = { ...auth(dave), ...CONFIG };
    const file = await upload(carolHeaders, `${line('only-carol', 'gpt-4o-mini')}\n`);
    expect(file.status).toBe(200);
    const fileId = file.json.id as string;

    expect((await call('GET', '/v1/files', carolHeaders)).json.data.map((f: any) => f.id)).toContain(fileId);
    expect((await call('GET', '/v1/files', daveHeaders)).json.data.map((f: any) => f.id)).not.toContain(fileId);
    account.seen.length = 0;
    for (const [method, path] of [
      ['GET', '/v1/files/<id>'],
      ['GET', '/v1/files/<id>/content'],
      ['DELETE', '/v1/files/<id>'],
    ] as const) {
      const foreign = await call(method, path.replace('<id>', fileId), daveHeaders);
      const unknown = await call(method, path.replace('<id>', 'file-unknown-0'), daveHeaders);
      expect(foreign.status, path).toBe(404);
      expect(foreign.json.error, path).toMatchObject({ type: 'invalid_request_error', code: 'not_found', param: 'file_id' });
      expect(shape(foreign, fileId), path).toEqual(shape(unknown, 'file-unknown-0'));
    }
    const stolenBatch = await call('POST', '/v1/batches', daveHeaders, { input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect(stolenBatch.status).toBe(404);
    expect(stolenBatch.json.error).toMatchObject({ code: 'not_found', param: 'input_file_id' });
    const stolenJob = await call('POST', '/v1/fine_tuning/jobs', daveHeaders, { model: 'gpt-4o-mini-2024-07-18', training_file: fileId });
    expect(stolenJob.status).toBe(404);
    expect(stolenJob.json.error).toMatchObject({ code: 'not_found', param: 'training_file' });
    expect(account.naming(fileId)).toEqual([]);

    // Carol's batch and job: hers to read, cancel and list; another key's 404s.
    const batch = await call('POST', '/v1/batches', carolHeaders, { input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect(batch.status).toBe(200);
    const batchId = batch.json.id as string;
    const job = await call('POST', '/v1/fine_tuning/jobs', carolHeaders, { model: 'gpt-4o-mini-2024-07-18', training_file: fileId });
    expect(job.status).toBe(200);
    const jobId = job.json.id as string;
    expect((await call('GET', '/v1/batches', daveHeaders)).json.data.map((b: any) => b.id)).not.toContain(batchId);
    expect((await call('GET', '/v1/fine_tuning/jobs', daveHeaders)).json.data.map((j: any) => j.id)).not.toContain(jobId);
    expect((await call('GET', '/v1/batches', carolHeaders)).json.data.map((b: any) => b.id)).toContain(batchId);
    expect((await call('GET', '/v1/fine_tuning/jobs', carolHeaders)).json.data.map((j: any) => j.id)).toContain(jobId);
    account.seen.length = 0;
    for (const [method, path, id, param] of [
      ['GET', `/v1/batches/${batchId}`, batchId, 'batch_id'],
      ['POST', `/v1/batches/${batchId}/cancel`, batchId, 'batch_id'],
      ['GET', `/v1/fine_tuning/jobs/${jobId}`, jobId, 'job_id'],
      ['GET', `/v1/fine_tuning/jobs/${jobId}/events`, jobId, 'job_id'],
      ['POST', `/v1/fine_tuning/jobs/${jobId}/cancel`, jobId, 'job_id'],
    ] as const) {
      const foreign = await call(method, path, daveHeaders);
      expect(foreign.status, path).toBe(404);
      expect(foreign.json.error, path).toMatchObject({ code: 'not_found', param });
      expect(shape(foreign, id), path).toEqual(shape(await call(method, path.replace(id, `${id}x`), daveHeaders), `${id}x`));
    }
    expect(account.seen).toEqual([]);

    // A finished batch's output file is its owner's.
    const output = account.complete(batchId);
    expect((await call('GET', `/v1/batches/${batchId}`, carolHeaders)).json).toMatchObject({ status: 'completed', output_file_id: output });
    expect((await call('GET', `/v1/files/${output}/content`, carolHeaders)).status).toBe(200);
    expect((await call('GET', `/v1/files/${output}/content`, daveHeaders)).status).toBe(404);
    expect((await call('DELETE', `/v1/files/${fileId}`, carolHeaders)).status).toBe(200);
  });

  it("answers another key's Responses API id on a held key as an unknown one, and never continues its conversation", async () => {
    const mine = await post(gw.url, '/v1/responses', { model: 'gpt-fast', input: 'what only alice said' }, auth(alice));
    expect(mine.status).toBe(200);
    const id = mine.json.id as string;
    const queued = await post(gw.url, '/v1/responses', { model: 'gpt-fast', input: 'later', background: true }, auth(alice));
    expect(queued.json.status).toBe('queued');
    const carolHeaders = { ...auth(carol), ...CONFIG };
    account.seen.length = 0;
    for (const target of [id, queued.json.id as string]) {
      for (const [method, path] of [
        ['GET', `/v1/responses/${target}`],
        ['GET', `/v1/responses/${target}/input_items`],
        ['DELETE', `/v1/responses/${target}`],
      ] as const) {
        const foreign = await call(method, path, carolHeaders);
        expect(foreign.status, path).toBe(404);
        expect(foreign.json.error, path).toMatchObject({ code: 'not_found', param: 'response_id' });
        expect(shape(foreign, target), path).toEqual(shape(await call(method, path.replace(target, 'resp_unknown_0'), carolHeaders), 'resp_unknown_0'));
      }
    }
    const chained = await post(gw.url, '/v1/responses', { model: 'gpt-4o-mini', input: 'what did I say?', previous_response_id: id }, carolHeaders);
    expect(chained.status).toBe(404);
    expect(chained.json.error).toMatchObject({ code: 'not_found', param: 'previous_response_id' });
    expect(account.seen).toEqual([]);

    // The owner still reads both: the kept one from the store, the background one from the provider.
    const aliceHeaders = { ...auth(alice), ...CONFIG };
    expect((await call('GET', `/v1/responses/${id}`, aliceHeaders)).json.id).toBe(id);
    expect((await call('GET', `/v1/responses/${queued.json.id}`, aliceHeaders)).status).toBe(200);
    expect(account.naming(queued.json.id).map((s) => s.authorization)).toEqual([`Bearer ${HELD}`]);
  });

  it('keeps the files and batches the gateway keeps to the gateway key that made them, never to a caller without one', async () => {
    const kept = { 'x-gateway-provider': 'openai', 'x-gateway-batch-mode': 'gateway', ...CONFIG };
    const file = await upload({ ...auth(alice), ...kept }, `${line('allowed', 'gpt-4o-mini')}\n${line('not-allowed', 'gpt-4.1')}\n`);
    expect(file.status).toBe(200);
    const fileId = file.json.id as string;
    expect(fileId).toMatch(/^file-gw-/);
    const anonymous = { 'x-gateway-provider': 'openai', 'x-gateway-batch-mode': 'gateway', 'x-gateway-config': JSON.stringify({ provider: 'openai' }) };
    for (const headers of [{ ...auth(dave), ...kept }, { ...auth(carol), ...kept }, anonymous]) {
      expect((await call('GET', '/v1/files', headers)).json.data.map((f: any) => f.id)).not.toContain(fileId);
      const content = await call('GET', `/v1/files/${fileId}/content`, headers);
      expect(content.status).toBe(404);
      expect(content.text).not.toContain('allowed');
    }
    expect((await call('GET', '/v1/files', { ...auth(alice), ...kept })).json.data.map((f: any) => f.id)).toContain(fileId);

    // Alice's batch runs each line as her request: the model her key may use is served, the other is refused as unknown.
    const batch = await call('POST', '/v1/batches', { ...auth(alice), ...kept }, { input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect(batch.status).toBe(200);
    let done: any;
    await vi.waitFor(
      async () => {
        done = (await call('GET', `/v1/batches/${batch.json.id}`, { ...auth(alice), ...kept })).json;
        expect(done.status).toBe('completed');
      },
      { timeout: 10_000, interval: 50 },
    );
    expect((await call('GET', `/v1/batches/${batch.json.id}`, { ...auth(dave), ...kept })).status).toBe(404);
    const output = jsonl((await call('GET', `/v1/files/${done.output_file_id}/content`, { ...auth(alice), ...kept })).text);
    const errors = jsonl((await call('GET', `/v1/files/${done.error_file_id}/content`, { ...auth(alice), ...kept })).text);
    expect(output.map((l) => [l.custom_id, l.response.status_code])).toEqual([['allowed', 200]]);
    expect(errors.map((l) => [l.custom_id, l.response.status_code, l.error.code])).toEqual([['not-allowed', 404, 'model_not_found']]);
    const sent = account.seen.filter((s) => s.path === '/v1/chat/completions');
    expect(sent.map((s) => [JSON.parse(s.body).model, s.authorization])).toEqual([['gpt-4o-mini', `Bearer ${HELD}`]]);
  });
});
