/**
 * A tool loop is charged through the request's meter (one reservation, settled to the sum of its
 * model calls and its tools' prices). In the usage ledger the request is one row (its id, the status its caller got,
 * the sums of its model calls' tokens and of its model and tool calls' costs), and its model and
 * tool calls are its parts in gateway_usage_parts, in the order they ended (tool calls at the
 * tool's price, mcpServers.<name>.toolPrices). On SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { USAGE_LEDGER } from '../../../src/features/governance/metering/metering-services.js';
import { STORE } from '../../../src/kernel/store/store-capability.js';
import type { FakeUpstream } from '../../helpers/fake-upstream.js';
import type { TestGateway } from '../../helpers/start-gateway.js';
import { startLoopGateway, type LoopGateway } from './loop-gateway.js';
import { MCP_TOOL, plan } from './fake-models.js';
import { connectClient, eventually, textOf } from '../../helpers/mcp.js';
import { dropSharedState, PG_URL } from '../../helpers/shared-stores.js';

const KEY = 'cfg-tool-loop-metering-key-0123456789';

/** A request's parts as [seq, kind, provider, model, server, tool, input, output, status, estimated]. */
const partsShape = (parts: any[]) =>
  parts.map((p) => [Number(p.seq), p.kind, p.provider, p.model, p.server, p.tool, Number(p.input_tokens), Number(p.output_tokens), Number(p.status), Number(p.estimated)]);

const pgSchema = `test_loop_metering_${process.pid}_${Date.now()}`;

describe.each([
  ['SQLite', undefined],
  ['PostgreSQL', { type: 'postgres', url: PG_URL, schema: pgSchema }],
] as const)('tool loops are metered (%s)', (_label, storage) => {
  let gw: TestGateway;

  let loop: LoopGateway;

  beforeAll(async () => {
    loop = await startLoopGateway(({ remote }) => ({
      ...(storage ? { storage } : {}),
      auth: {
        enabled: true,
        type: 'api-key',
        providerRoutes: true,
        adminToken: 'admin-token-0123456789abcdef0123456789',
        apiKeys: [{ key: KEY, user: 'ann', team: 'search', scopes: ['mcp:read', 'mcp:write'] }],
      },
      tenants: { teams: { search: {} } },
      budgets: { team: { search: { limit_usd: 100, window: { period: 'month' } } } },
      mcpServers: { remote: { url: remote.url, toolPrices: { echo: '0.002' } } },
    }));
    ({ gw } = loop);
  });
  afterAll(async () => {
    await loop?.close();
    if (storage) await dropSharedState('postgres', '', storage.schema);
  });

  it('whole and streamed, on /v1/responses and chat: one row per request with the sums; its model and tool calls are its parts, in order', async () => {
    plan.tool = 'echo';
    plan.args = { text: 'metered' };
    const client = new OpenAI({
      baseURL: `${gw.url}/v1`,
      apiKey: 'sk-provider-key-1',
      defaultHeaders: { 'x-gateway-provider': 'deepseek', 'x-gateway-token': KEY },
      maxRetries: 0,
    });
    const ids: string[] = [];
    const whole = await client.responses.create({ model: 'deepseek-v4-pro', input: 'Echo', tools: [MCP_TOOL] }).withResponse();
    ids.push(whole.response.headers.get('x-gateway-request-id')!);
    const streamed = await client.responses.create({ model: 'deepseek-v4-pro', input: 'Echo', tools: [MCP_TOOL], stream: true }).withResponse();
    ids.push(streamed.response.headers.get('x-gateway-request-id')!);
    for await (const _event of streamed.data);
    const chat = await client.chat.completions
      .create({ model: 'deepseek-v4-pro', messages: [{ role: 'user', content: 'Echo' }], tools: [{ type: 'mcp', server_label: 'remote' } as any], stream: true })
      .withResponse();
    ids.push(chat.response.headers.get('x-gateway-request-id')!);
    for await (const chunk of chat.data) expect(chunk.usage ?? undefined).toBeUndefined(); // the caller did not ask for usage
    expect(new Set(ids).size).toBe(3);
    await gw.gateway.services.require(USAGE_LEDGER).flush();
    const store = gw.gateway.services.require(STORE);
    const rows = await store.query<any>('SELECT * FROM gateway_usage ORDER BY at');
    for (const [i, route] of ['POST /v1/responses', 'POST /v1/responses', 'POST /v1/chat/completions'].entries()) {
      // the request's one row: its id, status, the summed tokens of its two model calls (10 in, 5 out each)
      const mine = rows.filter((r) => r.request_id === ids[i]);
      expect(
        mine.map((r) => [r.route, r.provider, r.model, Number(r.input_tokens), Number(r.output_tokens), Number(r.status), Number(r.estimated), r.user_id, r.parent_request_id]),
      ).toEqual([[route, 'deepseek', 'deepseek-v4-pro', 20, 10, 200, 0, 'ann', null]]);
      expect(mine[0].price_source).not.toBeNull();
      // its parts: model call, tool call (at its price), model call
      const parts = await store.query<any>('SELECT * FROM gateway_usage_parts WHERE request_id = ? ORDER BY seq', [ids[i]]);
      expect(partsShape(parts)).toEqual([
        [1, 'model', 'deepseek', 'deepseek-v4-pro', null, null, 10, 5, 200, 0],
        [2, 'tool', null, null, 'remote', 'echo', 0, 0, 200, 0],
        [3, 'model', 'deepseek', 'deepseek-v4-pro', null, null, 10, 5, 200, 0],
      ]);
      const [first, tool, second] = parts.map((p) => Number(p.cost_micros));
      expect(first).toBeGreaterThan(0);
      expect(second).toBe(first);
      expect(tool).toBe(2000);
      expect(parts[1].price_source).toBe('mcpServers.remote.toolPrices');
      expect(parts.every((p) => Number(p.at) >= Number(mine[0].at))).toBe(true);
      // the row's cost is the sum of its parts'
      expect(Number(mine[0].cost_micros)).toBe(first! + tool! + second!);
      // the whole answer names that cost
      if (i === 0) expect(Math.round(Number(whole.response.headers.get('x-gateway-cost')) * 1e6)).toBe(Number(mine[0].cost_micros));
    }
    // no other row: neither per model call nor per tool call
    expect(rows.filter((r) => !ids.includes(r.request_id))).toEqual([]);
    // the usage report counts each loop once, and sums its calls
    const report = await fetch(`${gw.url}/v1/admin/usage?group_by=user`, { headers: { authorization: 'Bearer admin-token-0123456789abcdef0123456789' } });
    expect(report.status).toBe(200);
    const line = ((await report.json()) as any).data.find((l: any) => l.group === 'ann');
    expect(line).toMatchObject({ requests: 3, input_tokens: 60, output_tokens: 30, cost_micros: rows.reduce((sum, r) => sum + Number(r.cost_micros), 0) });
    // the console's list shows each request once, under its own id
    const list = await fetch(`${gw.url}/v1/admin/requests`, { headers: { authorization: 'Bearer admin-token-0123456789abcdef0123456789' } });
    expect(list.status).toBe(200);
    const listed = ((await list.json()) as any).data as any[];
    expect(listed.map((r) => r.request_id).sort()).toEqual([...ids].sort());
    expect(listed.find((r) => r.request_id === ids[0])).toMatchObject({ status: 200, input_tokens: 20, output_tokens: 10 });
    // the team's budget was charged every call of the three loops: their model calls and the tool's price
    const charged = rows.reduce((sum, r) => sum + Number(r.cost_micros), 0);
    await eventually(
      async () => {
        const me = await fetch(`${gw.url}/v1/me`, { headers: { 'x-gateway-token': KEY } });
        const team = ((await me.json()) as any).budgets.find((b: any) => b.scope === 'team');
        return Math.round(Number(team?.spent_usd) * 1e6) === charged;
      },
      5000,
      'the budget charged the model calls and the tool prices',
    );
  });

  it('a direct tools/call on /mcp stays a request of its own (its own row, no parts)', async () => {
    const client = await connectClient(`${gw.url}/mcp/remote`, { 'x-api-key': KEY });
    try {
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'direct' } }))).toBe('echo: direct');
    } finally {
      await client.close();
    }
    await gw.gateway.services.require(USAGE_LEDGER).flush();
    const store = gw.gateway.services.require(STORE);
    const rows = await store.query<any>("SELECT * FROM gateway_usage WHERE route = '/mcp'");
    expect(rows.map((r) => [r.provider, r.model, Number(r.cost_micros), Number(r.status), r.parent_request_id])).toEqual([['mcp:remote', 'echo', 2000, 200, null]]);
    expect(await store.query<any>('SELECT * FROM gateway_usage_parts WHERE request_id = ?', [rows[0].request_id])).toEqual([]);
  });
});

describe('a budget used up mid-loop', () => {
  const TEAM_KEY = 'cfg-tool-loop-budget-key-0123456789ab';
  let fake: FakeUpstream;
  let gw: TestGateway;

  let loop: LoopGateway;

  beforeAll(async () => {
    loop = await startLoopGateway(() => ({
      auth: {
        enabled: true,
        type: 'api-key',
        providerRoutes: true,
        adminToken: 'admin-token-0123456789abcdef0123456789',
        apiKeys: [{ key: TEAM_KEY, user: 'bob', team: 'search', scopes: ['mcp:read', 'mcp:write'] }],
      },
      tenants: { teams: { search: {} } },
      budgets: { team: { search: { limit_usd: 0.05, window: { period: 'month' } } } },
    }));
    ({ fake, gw } = loop);
  });
  afterAll(async () => {
    await loop?.close();
    plan.usage = undefined;
  });

  it('ends the loop with the answer so far (incomplete, budget_exhausted): no further model call, and the spend is billed', async () => {
    plan.tool = 'echo';
    plan.args = { text: 'costly' };
    // deepseek-v4-pro: 20k prompt + 10k completion tokens cost about $0.066, past the $0.05 budget
    plan.usage = { prompt_tokens: 20_000, completion_tokens: 10_000, total_tokens: 30_000 };
    const client = new OpenAI({
      baseURL: `${gw.url}/v1`,
      apiKey: 'sk-provider-key-1',
      defaultHeaders: { 'x-gateway-provider': 'deepseek', 'x-gateway-token': TEAM_KEY },
      maxRetries: 0,
    });
    const before = fake.received('POST /chat/completions').length;
    const response = await client.responses.create({ model: 'deepseek-v4-pro', input: 'Echo', tools: [MCP_TOOL], max_output_tokens: 100 });
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'budget_exhausted' });
    expect(response.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call']);
    expect(fake.received('POST /chat/completions').length - before).toBe(1);
    await gw.gateway.services.require(USAGE_LEDGER).flush();
    const rows = await gw.gateway.services.require(STORE).query<any>("SELECT * FROM gateway_usage WHERE route = 'POST /v1/responses'");
    // one row for the loop: the answer so far (200), the one model call's cost
    expect(rows.map((r) => Number(r.status))).toEqual([200]);
    expect(Number(rows[0].cost_micros)).toBeGreaterThan(50_000);
    const parts = await gw.gateway.services.require(STORE).query<any>('SELECT kind, cost_micros FROM gateway_usage_parts WHERE request_id = ? ORDER BY seq', [rows[0].request_id]);
    expect(parts.map((p) => p.kind)).toEqual(['model', 'tool']);
    expect(Number(parts[0].cost_micros)).toBe(Number(rows[0].cost_micros));
    // the budget is spent: the next request is refused before any model call
    await expect(client.responses.create({ model: 'deepseek-v4-pro', input: 'Echo', tools: [MCP_TOOL], max_output_tokens: 100 })).rejects.toMatchObject({ status: 429 });
  });
});

describe('a loop that ends in a model error, whose caller goes away, or whose calls the cache answers', () => {
  const KEY_B = 'cfg-tool-loop-failure-key-0123456789a';
  let fake: FakeUpstream;
  let gw: TestGateway;
  let loop: LoopGateway;
  const client = () =>
    new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-provider-key-1', defaultHeaders: { 'x-gateway-provider': 'deepseek', 'x-gateway-token': KEY_B }, maxRetries: 0 });
  /** The request's rows (one once written) and its parts, in order. */
  const rowsOf = async (id: string) => {
    await gw.gateway.services.require(USAGE_LEDGER).flush();
    return gw.gateway.services.require(STORE).query<any>('SELECT * FROM gateway_usage WHERE request_id = ?', [id]);
  };
  const partsOf = async (id: string) => {
    await gw.gateway.services.require(USAGE_LEDGER).flush();
    return gw.gateway.services.require(STORE).query<any>('SELECT * FROM gateway_usage_parts WHERE request_id = ? ORDER BY seq', [id]);
  };
  const spent = async () => {
    const me = await fetch(`${gw.url}/v1/me`, { headers: { 'x-gateway-token': KEY_B } });
    expect(me.status).toBe(200);
    return Math.round(Number(((await me.json()) as any).budgets.find((b: any) => b.scope === 'team')?.spent_usd) * 1e6);
  };

  beforeAll(async () => {
    loop = await startLoopGateway(() => ({
      auth: {
        enabled: true,
        type: 'api-key',
        providerRoutes: true,
        adminToken: 'admin-token-0123456789abcdef0123456789',
        apiKeys: [{ key: KEY_B, user: 'cy', team: 'eval', scopes: ['mcp:read', 'mcp:write'] }],
      },
      tenants: { teams: { eval: {} } },
      budgets: { team: { eval: { limit_usd: 10, window: { period: 'month' } } } },
    }));
    ({ fake, gw } = loop);
  });
  afterAll(async () => {
    await loop?.close();
    plan.failAfterTool = false;
    plan.gate = undefined;
  });

  it('whole: the second model call fails (the caller gets its 400); the first call is billed and settled on the budget, the failed one costs nothing', async () => {
    plan.tool = 'echo';
    plan.args = { text: 'then fail' };
    plan.failAfterTool = true;
    try {
      const before = await spent();
      const res = await fetch(`${gw.url}/v1/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-provider-key-1', 'x-gateway-provider': 'deepseek', 'x-gateway-token': KEY_B },
        body: JSON.stringify({ model: 'deepseek-v4-pro', input: 'Echo', tools: [MCP_TOOL], max_output_tokens: 100 }),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error.message).toBe('The model refused the turn.');
      const id = res.headers.get('x-gateway-request-id')!;
      // the request's row: the status its caller got, the first call's tokens and cost
      const rows = await rowsOf(id);
      expect(rows.map((r) => [r.route, r.provider, r.model, Number(r.input_tokens), Number(r.output_tokens), Number(r.status), Number(r.estimated)])).toEqual([
        ['POST /v1/responses', 'deepseek', 'deepseek-v4-pro', 10, 5, 400, 0],
      ]);
      // its parts: the first call, the tool call, the failed call (it costs nothing)
      const parts = await partsOf(id);
      expect(partsShape(parts)).toEqual([
        [1, 'model', 'deepseek', 'deepseek-v4-pro', null, null, 10, 5, 200, 0],
        [2, 'tool', null, null, 'remote', 'echo', 0, 0, 200, 0],
        [3, 'model', 'deepseek', 'deepseek-v4-pro', null, null, 0, 0, 400, 0],
      ]);
      const cost = Number(parts[0].cost_micros);
      expect(cost).toBeGreaterThan(0);
      expect(parts.slice(1).map((p) => Number(p.cost_micros))).toEqual([0, 0]);
      expect(Number(rows[0].cost_micros)).toBe(cost);
      // the answer names what it cost, and the budget was settled to it
      expect(Math.round(Number(res.headers.get('x-gateway-cost')) * 1e6)).toBe(cost);
      await eventually(async () => (await spent()) - before === cost, 5000, 'the budget settled to the first call');
    } finally {
      plan.failAfterTool = false;
    }
  });

  it('streamed: the second model call fails (an error event ends the stream); the first call is billed', async () => {
    plan.tool = 'echo';
    plan.args = { text: 'then fail' };
    plan.failAfterTool = true;
    try {
      const streamed = await client()
        .responses.create({ model: 'deepseek-v4-pro', input: 'Echo', tools: [MCP_TOOL], stream: true })
        .withResponse();
      const id = streamed.response.headers.get('x-gateway-request-id')!;
      const events: any[] = [];
      for await (const event of streamed.data) events.push(event);
      expect(events.at(-1)).toMatchObject({ type: 'error', message: 'The model refused the turn.' });
      expect(events.map((e) => e.type)).toContain('response.mcp_call.completed');
      await eventually(async () => (await rowsOf(id)).length === 1, 5000, 'the request’s row');
      // the stream was answered 200 (its error is an event); the failed call's part has its status
      const [row] = await rowsOf(id);
      expect([Number(row.input_tokens), Number(row.output_tokens), Number(row.status), Number(row.estimated)]).toEqual([10, 5, 200, 0]);
      const parts = await partsOf(id);
      expect(partsShape(parts)).toEqual([
        [1, 'model', 'deepseek', 'deepseek-v4-pro', null, null, 10, 5, 200, 0],
        [2, 'tool', null, null, 'remote', 'echo', 0, 0, 200, 0],
        [3, 'model', 'deepseek', 'deepseek-v4-pro', null, null, 0, 0, 400, 0],
      ]);
      expect(Number(parts[0].cost_micros)).toBeGreaterThan(0);
      expect(Number(row.cost_micros)).toBe(Number(parts[0].cost_micros));
    } finally {
      plan.failAfterTool = false;
    }
  });

  const ROUTES = [
    {
      path: '/v1/responses',
      body: { model: 'deepseek-v4-pro', input: 'Echo', tools: [MCP_TOOL], stream: true, max_output_tokens: 100 },
      piece: '"delta":"The "',
    },
    {
      path: '/v1/chat/completions',
      body: { model: 'deepseek-v4-pro', messages: [{ role: 'user', content: 'Echo' }], tools: [MCP_TOOL], stream: true, max_tokens: 100 },
      piece: '"content":"The "',
    },
    {
      path: '/v1/messages',
      body: {
        model: 'deepseek-v4-pro',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Echo' }],
        mcp_servers: [{ type: 'url', url: '/mcp/remote', name: 'tools' }],
        stream: true,
      },
      piece: '"text":"The "',
    },
  ];
  for (const route of ROUTES)
    it(`${route.path}: a caller that goes away while a model call streams: that call is billed for what it generated (estimated), the loop stops`, async () => {
      plan.tool = 'echo';
      plan.args = { text: 'then go' };
      let release!: () => void;
      // the second model call sends its first word, then waits
      plan.gate = new Promise<void>((resolve) => (release = resolve));
      const callsBefore = fake.received('POST /chat/completions').length;
      const controller = new AbortController();
      try {
        const body: Record<string, any> = structuredClone(route.body);
        if (body.mcp_servers) body.mcp_servers[0].url = `${gw.url}/mcp/remote`;
        const res = await fetch(`${gw.url}${route.path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer sk-provider-key-1', 'x-gateway-provider': 'deepseek', 'x-gateway-token': KEY_B },
          body: JSON.stringify(body),
          signal: controller.signal,
        });
        expect(res.status).toBe(200);
        const id = res.headers.get('x-gateway-request-id')!;
        const reader = res.body!.getReader();
        const decoder = new TextDecoder();
        let seen = '';
        while (!seen.includes(route.piece)) {
          const { value, done } = await reader.read();
          if (done) break;
          seen += decoder.decode(value);
        }
        expect(seen).toContain(route.piece);
        controller.abort();
        await eventually(async () => (await partsOf(id)).length === 3 && (await rowsOf(id)).length === 1, 5000, 'the request’s row and its parts');
        const parts = await partsOf(id);
        // the first call, the tool call, the cut call (estimated; the caller went away: 499)
        expect(parts.map((p) => [Number(p.seq), p.kind, Number(p.status), Number(p.estimated)])).toEqual([
          [1, 'model', 200, 0],
          [2, 'tool', 200, 0],
          [3, 'model', 499, 1],
        ]);
        const cut = parts[2];
        // the prompt of the second call (the conversation and the offered tools) and the word it sent
        expect(Number(cut.input_tokens)).toBeGreaterThan(10);
        expect(Number(cut.output_tokens)).toBeGreaterThanOrEqual(1);
        expect(Number(cut.output_tokens)).toBeLessThan(5);
        expect(Number(cut.cost_micros)).toBeGreaterThan(0);
        // the request's row: estimated, its cost the sum of both calls
        const [row] = await rowsOf(id);
        expect(Number(row.estimated)).toBe(1);
        expect(Number(row.cost_micros)).toBe(Number(parts[0].cost_micros) + Number(cut.cost_micros));
        expect(Number(row.input_tokens)).toBe(Number(parts[0].input_tokens) + Number(cut.input_tokens));
        expect(fake.received('POST /chat/completions').length).toBe(callsBefore + 2);
        // the usage report counts the request as estimated
        const report = await fetch(`${gw.url}/v1/admin/usage?group_by=user`, { headers: { authorization: 'Bearer admin-token-0123456789abcdef0123456789' } });
        expect(((await report.json()) as any).data.find((l: any) => l.group === 'cy').estimated_requests).toBeGreaterThanOrEqual(1);
      } finally {
        release();
        plan.gate = undefined;
      }
    });

  it('model calls of a loop answered from the answer cache cost nothing (the tool calls still run)', async () => {
    plan.tool = 'echo';
    plan.args = { text: 'cached' };
    const headers = {
      'content-type': 'application/json',
      authorization: 'Bearer sk-provider-key-1',
      'x-gateway-token': KEY_B,
      'x-gateway-config': JSON.stringify({ provider: 'deepseek', cache: { mode: 'simple', max_age: 60 } }),
    };
    // chat answers are cacheable (Responses ones are not)
    const body = JSON.stringify({ model: 'deepseek-v4-pro', messages: [{ role: 'user', content: 'Echo cached' }], tools: [MCP_TOOL], max_tokens: 100 });
    const first = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers, body });
    expect(first.status).toBe(200);
    const callsBefore = fake.received('POST /chat/completions').length;
    const second = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers, body });
    expect(second.status).toBe(200);
    expect(((await second.json()) as any).choices[0].message.content).toBe('The tool said: echo: cached');
    // both model calls were answered from the cache
    expect(fake.received('POST /chat/completions').length).toBe(callsBefore);
    const [a, b] = [first.headers.get('x-gateway-request-id')!, second.headers.get('x-gateway-request-id')!];
    const paid = (await partsOf(a)).filter((p) => p.kind === 'model');
    expect(paid.map((p) => Number(p.output_tokens))).toEqual([5, 5]);
    expect((await rowsOf(a)).map((r) => Number(r.output_tokens))).toEqual([10]);
    const parts = await partsOf(b);
    expect(parts.map((p) => [p.kind, p.tool, Number(p.input_tokens), Number(p.output_tokens), Number(p.cost_micros)])).toEqual([
      ['model', null, 0, 0, 0],
      ['tool', 'echo', 0, 0, 0],
      ['model', null, 0, 0, 0],
    ]);
    expect((await rowsOf(b)).map((r) => [Number(r.input_tokens), Number(r.output_tokens), Number(r.cost_micros), Number(r.status)])).toEqual([[0, 0, 0, 200]]);
    expect(Number(second.headers.get('x-gateway-cost'))).toBe(0);
  });
});
