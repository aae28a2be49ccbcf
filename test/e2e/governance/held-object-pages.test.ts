/**
 * Full pages of held objects: a list of files, batches or fine-tuning jobs a provider keeps on a
 * key the gateway holds is filtered to the caller's own objects, and a filtered page used to come
 * back short, or empty with has_more: true, whenever other tenants' objects stood between the
 * caller's. The openai SDK's auto-pagination stops at an empty page, so a tenant never saw some
 * of its own objects. The held-objects stage now reads the provider's next pages (cursor `after`)
 * until the page holds `limit` of the caller's objects, or the provider has no more.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoopbackFake } from '../../helpers/loopback-server.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { issueKey } from '../../helpers/gateway-keys.js';

const ADMIN = 'admin-token-held-object-pages-0123456789';
const HELD = 'sk-held-openai-pages-0001';
const CONFIG = { 'x-gateway-config': JSON.stringify({ credential: 'openai-prod' }) };

type Kind = 'files' | 'batches' | 'jobs';
type Item = Record<string, unknown> & { id: string };

/**
 * One OpenAI account shared by every tenant of a held key: files, batches and fine-tuning jobs,
 * listed newest first in pages of `limit` (OpenAI's default and maximum) after the id `after`.
 */
class ProviderAccount extends LoopbackFake {
  /** The list requests, path and query. */
  readonly lists: string[] = [];
  /** The most items a page holds, whatever `limit` asks (OpenAI: 10000 files, 100 batches or jobs). */
  pageMax: number | undefined;
  private n = 0;
  private readonly items: Record<Kind, Item[]> = { files: [], batches: [], jobs: [] };

  private page(kind: Kind, query: URLSearchParams) {
    const newestFirst = [...this.items[kind]].reverse();
    const after = query.get('after');
    const start = after === null ? 0 : newestFirst.findIndex((i) => i.id === after) + 1;
    const max = this.pageMax ?? (kind === 'files' ? 10000 : 100);
    const limit = Math.min(Number(query.get('limit') ?? (kind === 'files' ? 10000 : 20)), max);
    const data = start === 0 && after !== null ? [] : newestFirst.slice(start, start + limit);
    return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: start + limit < newestFirst.length };
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://account');
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const body = raw.startsWith('{') ? (JSON.parse(raw) as Record<string, unknown>) : {};
    const created = ++this.n;
    switch (`${req.method} ${url.pathname}`) {
      case 'POST /v1/files': {
        const file = { id: `file-${created}`, object: 'file', bytes: raw.length, created_at: 1732000000 + created, filename: 'lines.jsonl', purpose: 'batch', status: 'processed' };
        this.items.files.push(file);
        return send(200, file);
      }
      case 'POST /v1/batches': {
        const batch = {
          id: `batch_${created}`,
          object: 'batch',
          endpoint: body.endpoint,
          input_file_id: body.input_file_id,
          completion_window: '24h',
          status: 'validating',
          output_file_id: null,
          error_file_id: null,
          created_at: created,
        };
        this.items.batches.push(batch);
        return send(200, batch);
      }
      case 'POST /v1/fine_tuning/jobs': {
        const job = {
          id: `ftjob-${created}`,
          object: 'fine_tuning.job',
          model: body.model,
          created_at: created,
          status: 'queued',
          training_file: body.training_file,
          result_files: [],
        };
        this.items.jobs.push(job);
        return send(200, job);
      }
      case 'GET /v1/files':
      case 'GET /v1/batches':
      case 'GET /v1/fine_tuning/jobs': {
        this.lists.push(`${url.pathname}${url.search}`);
        const kind: Kind = url.pathname === '/v1/files' ? 'files' : url.pathname === '/v1/batches' ? 'batches' : 'jobs';
        return send(200, this.page(kind, url.searchParams));
      }
    }
    send(404, { error: { message: `No such object: ${url.pathname}`, type: 'invalid_request_error', code: null } });
  }
}

describe('full pages of the objects a provider holds on a held key', () => {
  let account: ProviderAccount;
  let gw: TestGateway;
  /** The two tenants' clients (teams red and blue), through the held credential. */
  let ann: OpenAI;
  let bob: OpenAI;
  let annKey: string;
  /** Each tenant's objects, newest first. */
  const own: Record<'ann' | 'bob', Record<Kind, string[]>> = { ann: { files: [], batches: [], jobs: [] }, bob: { files: [], batches: [], jobs: [] } };
  /** Ann's objects among 40 of each kind: runs of Bob's objects (up to 13) between hers. */
  const ANNS = new Set([0, 2, 3, 11, 12, 13, 27, 39]);

  const client = (key: string) => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, defaultHeaders: CONFIG, maxRetries: 0 });
  const all = async <T extends { id: string }>(list: AsyncIterable<T>) => {
    const ids: string[] = [];
    for await (const item of list) ids.push(item.id);
    return ids;
  };
  const get = async (path: string, key: string) => {
    const res = await fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${key}`, ...CONFIG } });
    expect(res.status).toBe(200);
    return (await res.json()) as { data: Item[]; has_more: boolean; first_id?: string | null; last_id?: string | null };
  };
  const create = async (who: 'ann' | 'bob', kind: Kind) => {
    const c = who === 'ann' ? ann : bob;
    const file = () => own[who].files.at(-1)!;
    let id: string;
    if (kind === 'files') id = (await c.files.create({ file: await toFile(Buffer.from('{"custom_id":"1"}\n'), 'lines.jsonl'), purpose: 'batch' })).id;
    else if (kind === 'batches') id = (await c.batches.create({ input_file_id: file(), endpoint: '/v1/chat/completions', completion_window: '24h' })).id;
    else id = (await c.fineTuning.jobs.create({ model: 'gpt-4o-mini-2024-07-18', training_file: file() })).id;
    own[who][kind].unshift(id);
  };

  beforeAll(async () => {
    account = await new ProviderAccount().start();
    gw = await startGateway({
      logging: { level: 'warn' },
      auth: { adminToken: ADMIN },
      secrets: { key: 'ef'.repeat(32) },
      providers: { openai: { baseUrl: `${account.url}/v1` } },
      credentials: { 'openai-prod': { provider: 'openai', api_key: HELD } },
      models: { 'openai/*': { credential: 'openai-prod' } },
      tenants: { organizations: { acme: {}, globex: {} }, teams: { red: { organization: 'acme' }, blue: { organization: 'globex' } } },
    });
    annKey = (await issueKey(gw.url, ADMIN, { user: 'ann@acme.example', team: 'red' })).token;
    ann = client(annKey);
    bob = client((await issueKey(gw.url, ADMIN, { user: 'bob@globex.example', team: 'blue' })).token);
    for (const kind of ['files', 'batches', 'jobs'] as const) {
      // Each tenant's first file comes first: their batches and jobs read it.
      if (kind === 'files') await create('bob', 'files');
      for (let i = 0; i < 40; i++) await create(ANNS.has(i) ? 'ann' : 'bob', kind);
    }
  });
  afterAll(async () => {
    await gw?.close();
    await account?.stop();
  });

  it("lists all of a tenant's own files, batches and jobs through the SDK's auto-pagination, never another's", async () => {
    expect(own.ann.batches).toHaveLength(8);
    expect(await all(ann.files.list())).toEqual(own.ann.files);
    expect(await all(ann.files.list({ limit: 3 }))).toEqual(own.ann.files);
    expect(await all(ann.batches.list({ limit: 2 }))).toEqual(own.ann.batches);
    expect(await all(ann.batches.list())).toEqual(own.ann.batches);
    expect(await all(ann.fineTuning.jobs.list({ limit: 2 }))).toEqual(own.ann.jobs);
    expect(await all(bob.batches.list({ limit: 5 }))).toEqual(own.bob.batches);
    expect(await all(bob.fineTuning.jobs.list({ limit: 7 }))).toEqual(own.bob.jobs);
  });

  it('fills each page to `limit` where enough of the own objects exist, its first_id and last_id those of its data', async () => {
    const sizes: number[] = [];
    for await (const page of (await ann.batches.list({ limit: 3 })).iterPages()) sizes.push(page.data.length);
    expect(sizes).toEqual([3, 3, 2]);
    const first = await get('/v1/fine_tuning/jobs?limit=3', annKey);
    expect(first.data.map((j) => j.id)).toEqual(own.ann.jobs.slice(0, 3));
    expect(first).toMatchObject({ has_more: true, first_id: own.ann.jobs[0], last_id: own.ann.jobs[2] });
    // The next page goes on from the last id returned: nothing between it and where the last read stopped is lost.
    const next = await get(`/v1/fine_tuning/jobs?limit=3&after=${own.ann.jobs[2]}`, annKey);
    expect(next.data.map((j) => j.id)).toEqual(own.ann.jobs.slice(3, 6));
    const last = await get(`/v1/fine_tuning/jobs?limit=3&after=${own.ann.jobs[5]}`, annKey);
    expect(last).toMatchObject({ has_more: false, first_id: own.ann.jobs[6], last_id: own.ann.jobs[7] });
    expect(last.data.map((j) => j.id)).toEqual(own.ann.jobs.slice(6));
  });

  it('reads at most 10 provider pages for one request: a page short of `limit` then says has_more', async () => {
    // 60 of Bob's batches, then Ann's newest: her next one lies behind more than 10 pages of 5.
    for (let i = 0; i < 60; i++) await create('bob', 'batches');
    await create('ann', 'batches');
    account.pageMax = 5;
    account.lists.length = 0;
    try {
      const page = await get('/v1/batches?limit=2', annKey);
      expect(page.data.map((b) => b.id)).toEqual([own.ann.batches[0]]);
      expect(page).toMatchObject({ has_more: true, first_id: own.ann.batches[0], last_id: own.ann.batches[0] });
      expect(account.lists).toHaveLength(10);
      expect(account.lists[0]).toBe('/v1/batches?limit=2');
      // The next pages go on after the provider's last id, in pages as large as the provider gives.
      expect(account.lists[1]).toBe(`/v1/batches?limit=100&after=${own.bob.batches[0]}`);
    } finally {
      account.pageMax = undefined;
    }
    // With OpenAI's page of 100, one request reads past Bob's run.
    expect(await all(ann.batches.list({ limit: 2 }))).toEqual(own.ann.batches);
  });
});
