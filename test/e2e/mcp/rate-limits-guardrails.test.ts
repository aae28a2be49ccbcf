import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { HttpToolServer } from '../../helpers/http-tool-server.js';
import { connectClient, everythingServer, rawPost, stdioToolServer, textOf } from '../../helpers/mcp.js';

const HOUR = 3_600_000;
/** Waits out the last seconds of a clock-aligned window, so a test's requests share one window. */
async function awayFromWindowEdge(): Promise<void> {
  const left = HOUR - (Date.now() % HOUR);
  if (left < 15_000) await new Promise((r) => setTimeout(r, left + 50));
}

const ALICE = 'mcp-key-alice-team-red-0001';
const BOB = 'mcp-key-bob-team-red-0002';
const CAROL = 'mcp-key-carol-team-blue-0003';
const keys = [
  { key: ALICE, user: 'alice', email: 'alice@example.com', team: 'red', scopes: ['mcp:read', 'mcp:write'] },
  { key: BOB, user: 'bob', email: 'bob@example.com', team: 'red', scopes: ['mcp:read', 'mcp:write'] },
  { key: CAROL, user: 'carol', email: 'carol@example.com', team: 'blue', scopes: ['mcp:read', 'mcp:write'] },
];
const as = (key: string) => ({ 'x-api-key': key });
const call = (name: string, args: Record<string, unknown>, id: number | string = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
const list = (id = 1) => ({ jsonrpc: '2.0', id, method: 'tools/list' });

describe('rate limits on /mcp and /mcp/<server>, per token, user and team', () => {
  let remote: HttpToolServer;
  let gw: TestGateway;

  beforeAll(async () => {
    remote = await new HttpToolServer().start();
    gw = await startGateway({
      auth: { enabled: true, type: 'api-key', header: 'x-api-key', apiKeys: keys },
      mcpServers: { remote: { url: remote.url }, local: stdioToolServer() },
      rateLimits: [
        { per: 'token', limit: 3, window: '1h', routes: ['/mcp/remote'] },
        { per: 'team', limit: 5, window: '1h', routes: ['/mcp'] },
        { per: 'user', limit: 2, window: '1h', routes: ['/mcp/local'] },
        // Rules without routes cover the provider routes only, never /mcp.
        { per: 'token', limit: 1, window: '1h' },
      ],
    });
  });
  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
  });

  it('per token on /mcp/<server>: an SDK client gets 429 past the limit; nothing more reaches the tool server; another token goes on', async () => {
    await awayFromWindowEdge();
    // initialize is the first JSON-RPC request; notifications/initialized and the GET stream are not counted.
    const client = await connectClient(`${gw.url}/mcp/remote`, as(ALICE));
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'one' } }))).toBe('echo: one');
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'two' } }))).toBe('echo: two');
    const before = remote.calls.length;
    const refused = await client.callTool({ name: 'echo', arguments: { text: 'three' } }).catch((e: Error) => e);
    expect(refused).toBeInstanceOf(Error);
    // The SDK's StreamableHTTPError carries the HTTP status as its code.
    expect((refused as Error & { code?: number }).code).toBe(429);
    expect(String((refused as Error).message)).toMatch(/Rate limit exceeded: 3 requests per 1h per token/);
    expect(remote.calls.length).toBe(before);
    await client.close();

    const raw = await rawPost(`${gw.url}/mcp/remote`, call('echo', { text: 'raw' }), as(ALICE));
    expect(raw.status).toBe(429);
    expect(Number(raw.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(raw.headers.get('x-ratelimit-limit')).toBe('3');
    expect(raw.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(raw.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    expect(raw.json).toMatchObject({ status: 'failure', error: { type: 'rate_limit_error', code: 'rate_limit_exceeded' } });

    const other = await rawPost(`${gw.url}/mcp/remote`, call('echo', { text: 'carol' }), as(CAROL));
    expect(other.status).toBe(200);
    expect(other.json.result.content[0].text).toBe('echo: carol');
    expect(other.headers.get('x-ratelimit-remaining')).toBe('2');
  });

  it('per team on /mcp: two users of one team share the budget; another team does not; notifications are never refused', async () => {
    await awayFromWindowEdge();
    const seen: Array<[number, string | null]> = [];
    for (const key of [ALICE, BOB, ALICE, BOB, ALICE]) {
      const res = await rawPost(`${gw.url}/mcp`, list(), as(key));
      seen.push([res.status, res.headers.get('x-ratelimit-remaining')]);
    }
    expect(seen).toEqual([
      [200, '4'],
      [200, '3'],
      [200, '2'],
      [200, '1'],
      [200, '0'],
    ]);
    const bob = await rawPost(`${gw.url}/mcp`, call('remote__echo', { text: 'over' }), as(BOB));
    expect(bob.status).toBe(429);
    expect(bob.json.error.message).toMatch(/5 requests per 1h per team/);
    expect((await rawPost(`${gw.url}/mcp`, list(), as(CAROL))).status).toBe(200);
    const note = await rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9 } }, as(BOB));
    expect(note.status).not.toBe(429);
    expect(note.status).toBeLessThan(300);
  });

  it('per user on /mcp/local, and a batch counts once', async () => {
    await awayFromWindowEdge();
    const batch = await rawPost(`${gw.url}/mcp/local`, [call('echo', { text: 'a' }, 1), call('echo', { text: 'b' }, 2)], { ...as(CAROL), 'mcp-protocol-version': '2025-03-26' });
    expect(batch.status).toBe(200);
    expect(batch.headers.get('x-ratelimit-remaining')).toBe('1');
    expect((await rawPost(`${gw.url}/mcp/local`, call('echo', { text: 'c' }), as(CAROL))).status).toBe(200);
    expect((await rawPost(`${gw.url}/mcp/local`, call('echo', { text: 'd' }), as(CAROL))).status).toBe(429);
  });
});

describe('guardrails on MCP tool arguments and results (deny, flag, redact)', () => {
  let remote: HttpToolServer;
  let gw: TestGateway;
  let dir: string;
  let client: Client;

  beforeAll(async () => {
    remote = await new HttpToolServer().start();
    dir = mkdtempSync(join(tmpdir(), 'gw-mcp-guardrails-'));
    writeFileSync(
      join(dir, 'mcp.yaml'),
      [
        'name: mcp',
        'extends: mcp',
        'configure:',
        '  guardrail: { toolArguments: [no-keys, mask-pii, flag-word], toolResults: [no-internal, mask-pii], tools: ["remote__*", "everything__*"] }',
        '',
      ].join('\n'),
    );
    gw = await startGateway({
      auth: { enabled: true, type: 'api-key', header: 'x-api-key', apiKeys: keys },
      mcpServers: { remote: { url: remote.url }, local: stdioToolServer(), everything: everythingServer() },
      guardrails: {
        'no-keys': { action: 'deny', checks: [{ type: 'regex', pattern: 'sk-[A-Za-z0-9]{8,}' }] },
        'mask-pii': { action: 'redact', checks: [{ type: 'pii' }] },
        'flag-word': { action: 'flag', checks: [{ type: 'contains', words: ['suspicious'], operator: 'none' }] },
        'no-internal': { action: 'deny', checks: [{ type: 'regex', pattern: 'INTERNAL-ONLY' }] },
      },
      pipelines: { dir },
    });
    client = await connectClient(`${gw.url}/mcp`, as(ALICE));
  });
  afterAll(async () => {
    await client?.close();
    await gw?.close();
    await remote?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('deny on arguments: a JSON-RPC error naming the guardrail; the tool server never sees the call; the session goes on', async () => {
    const before = remote.calls.length;
    const refused = await client.callTool({ name: 'remote__echo', arguments: { text: 'my key is sk-abcdefgh1234' } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).code).toBe(-32005);
    expect((refused as McpError).message).toContain('Guardrail "no-keys" denied the call of tool remote__echo: regex check failed');
    expect((refused as McpError).data).toMatchObject({ type: 'guardrail_error', code: 'guardrail_failed' });
    expect(JSON.stringify(refused)).not.toContain('sk-abcdefgh1234');
    expect(remote.calls.length).toBe(before);
    expect(textOf(await client.callTool({ name: 'remote__echo', arguments: { text: 'still fine' } }))).toBe('echo: still fine');
  });

  it('redact on arguments: the tool server gets the masked text; flag: the call goes on, marked', async () => {
    expect(textOf(await client.callTool({ name: 'remote__echo', arguments: { text: 'write to ada@example.org' } }))).toBe('echo: write to [REDACTED_EMAIL]');
    const masked = await rawPost(`${gw.url}/mcp`, call('remote__echo', { text: 'ada@example.org' }), as(ALICE));
    expect(masked.headers.get('x-gateway-guardrail-verdict')).toBe('redacted');
    expect(masked.json.result.content[0].text).toBe('echo: [REDACTED_EMAIL]');
    const flagged = await rawPost(`${gw.url}/mcp`, call('remote__echo', { text: 'a suspicious request' }), as(ALICE));
    expect(flagged.status).toBe(200);
    expect(flagged.headers.get('x-gateway-guardrail-verdict')).toBe('flagged');
    expect(flagged.json.result.content[0].text).toBe('echo: a suspicious request');
  });

  it('deny on results: the caller gets the JSON-RPC error instead of the result, over an event stream and as JSON', async () => {
    const before = remote.calls.length;
    const streamed = await client.callTool({ name: 'remote__echo', arguments: { text: 'INTERNAL-ONLY plans' } }).catch((e: unknown) => e);
    expect(streamed).toBeInstanceOf(McpError);
    expect((streamed as McpError).code).toBe(-32005);
    expect((streamed as McpError).message).toContain('Guardrail "no-internal" denied the result of tool remote__echo');
    expect(remote.calls.length).toBe(before + 1);
    const json = await rawPost(`${gw.url}/mcp`, call('remote__echo', { text: 'INTERNAL-ONLY plans' }, 'x-7'), as(ALICE));
    expect(json.status).toBe(200);
    // A call without a session is relayed as the tool server answers it: JSON or an event stream.
    expect(json.json).toMatchObject({ jsonrpc: '2.0', id: 'x-7', error: { code: -32005, data: { type: 'guardrail_error', code: 'guardrail_failed' } } });
    expect(json.text).not.toContain('INTERNAL-ONLY plans');
    if (json.headers.get('content-type')?.includes('application/json')) expect(Number(json.headers.get('content-length'))).toBe(Buffer.byteLength(json.text));
  });

  it('redact on results: text the tool answers is masked and the result marked; other results keep their bytes', async () => {
    // whoami answers the forwarded identity, whose email is PII the arguments never held.
    const result = await client.callTool({ name: 'remote__whoami', arguments: {} });
    expect(textOf(result)).toContain('[REDACTED_EMAIL]');
    expect(textOf(result)).not.toContain('alice@example.com');
    expect(result._meta).toMatchObject({ 'io.gateway/guardrail-verdict': 'redacted' });
    const plain = await rawPost(`${gw.url}/mcp`, call('remote__add', { a: 2, b: 3 }), as(ALICE));
    expect(plain.json.result).toEqual({ content: [{ type: 'text', text: '5' }], structuredContent: { sum: 5 } });
    expect(plain.headers.get('x-gateway-guardrail-verdict')).toBeNull();
  });

  it('/mcp/<server> and the 2026-07-28 revision are checked too; tools outside `tools` are not', async () => {
    const V = '2026-07-28';
    const meta = {
      'io.modelcontextprotocol/protocolVersion': V,
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const modern = await rawPost(
      `${gw.url}/mcp/remote`,
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'sk-abcdefgh1234' }, _meta: meta } },
      { ...as(ALICE), 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
    );
    expect(modern.json).toMatchObject({ id: 3, error: { code: -32005, message: expect.stringContaining('call of tool remote__echo') } });
    const other = await client.callTool({ name: 'local__echo', arguments: { text: 'sk-abcdefgh1234 ada@example.org' } });
    expect(textOf(other)).toBe('echo: sk-abcdefgh1234 ada@example.org');
  });

  it('results are checked on every transport: the /mcp/<server> relays (remote, process session), the stateless revision, and a batch', async () => {
    const V = '2026-07-28';
    // /mcp/remote through a session of its own (the remote relay, an event stream or JSON as the server answers).
    const remoteClient = await connectClient(`${gw.url}/mcp/remote`, as(ALICE));
    try {
      const denied = await remoteClient.callTool({ name: 'echo', arguments: { text: 'INTERNAL-ONLY plans' } }).catch((e: unknown) => e);
      expect(denied).toBeInstanceOf(McpError);
      expect((denied as McpError).message).toContain('Guardrail "no-internal" denied the result of tool remote__echo');
      const masked = await remoteClient.callTool({ name: 'whoami', arguments: {} });
      expect(textOf(masked)).toContain('[REDACTED_EMAIL]');
      expect(masked._meta).toMatchObject({ 'io.gateway/guardrail-verdict': 'redacted' });
      expect(textOf(await remoteClient.callTool({ name: 'echo', arguments: { text: 'fine' } }))).toBe('echo: fine');
    } finally {
      await remoteClient.close();
    }
    // /mcp/remote without a session (the shared session), as JSON: the changed answer has its own length.
    const json = await rawPost(`${gw.url}/mcp/remote`, call('echo', { text: 'INTERNAL-ONLY plans' }, 'r-1'), as(ALICE));
    expect(json.json).toMatchObject({ id: 'r-1', error: { code: -32005, message: expect.stringContaining('result of tool remote__echo') } });
    expect(json.text).not.toContain('INTERNAL-ONLY plans');
    if (json.headers.get('content-type')?.includes('application/json')) expect(Number(json.headers.get('content-length'))).toBe(Buffer.byteLength(json.text));
    // /mcp/everything: a process session of its own (the process relay).
    const processClient = await connectClient(`${gw.url}/mcp/everything`, as(ALICE));
    try {
      const denied = await processClient.callTool({ name: 'echo', arguments: { message: 'INTERNAL-ONLY plans' } }).catch((e: unknown) => e);
      expect(denied).toBeInstanceOf(McpError);
      expect((denied as McpError).code).toBe(-32005);
      expect((denied as McpError).message).toContain('denied the result of tool everything__echo');
      const masked = await processClient.callTool({ name: 'echo', arguments: { message: 'mail me' } });
      expect(textOf(masked)).toBe('Echo: mail me');
      expect(masked._meta?.['io.gateway/guardrail-verdict']).toBeUndefined();
    } finally {
      await processClient.close();
    }
    // The stateless revision, on /mcp (the gateway's own dispatch).
    const meta = {
      'io.modelcontextprotocol/protocolVersion': V,
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const modern = await rawPost(
      `${gw.url}/mcp`,
      { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'remote__echo', arguments: { text: 'INTERNAL-ONLY plans' }, _meta: meta } },
      { ...as(ALICE), 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': 'remote__echo' },
    );
    expect(modern.json).toMatchObject({ id: 9, error: { code: -32005, message: expect.stringContaining('result of tool remote__echo') } });
    expect(modern.text).not.toContain('INTERNAL-ONLY plans');
    const redacted = await rawPost(
      `${gw.url}/mcp`,
      { jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'remote__whoami', arguments: {}, _meta: meta } },
      { ...as(ALICE), 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': 'remote__whoami' },
    );
    expect(redacted.headers.get('x-gateway-guardrail-verdict')).toBe('redacted');
    expect(redacted.json.result._meta).toMatchObject({ 'io.gateway/guardrail-verdict': 'redacted' });
    expect(redacted.text).not.toContain('alice@example.com');
    // A batch without a session (the gateway's own stateless dispatch): each answer checked, the others as they are.
    const batch = await rawPost(`${gw.url}/mcp`, [call('remote__echo', { text: 'INTERNAL-ONLY' }, 1), call('remote__echo', { text: 'fine' }, 2)], {
      ...as(ALICE),
      'mcp-protocol-version': '2025-03-26',
    });
    const answers = [batch.json].flat() as Array<{ id: number; result?: unknown; error?: { code: number } }>;
    expect(answers.find((a) => a.id === 1)?.error?.code).toBe(-32005);
    expect(answers.find((a) => a.id === 2)?.result).toMatchObject({ content: [{ type: 'text', text: 'echo: fine' }] });
  });

  it('a checked result that comes after progress notifications on the event stream: the notifications reach the client in order, then the result', async () => {
    const progress: number[] = [];
    const result = await client.callTool({ name: 'everything__trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    // In order, through the answer step. (The last one may be lost before it reaches the gateway's answer:
    // the upstream race of issue 11 item 1, which the MCP relay rewrite addresses.)
    expect(progress.slice(0, 2)).toEqual([1, 2]);
    expect(textOf(result)).toBe('Long running operation completed. Duration: 0.3 seconds, Steps: 3.');
  });

  it('a batch with a refused call is answered by the gateway alone, one error per request', async () => {
    const before = remote.calls.length;
    const res = await rawPost(`${gw.url}/mcp`, [call('remote__echo', { text: 'ok' }, 1), call('remote__echo', { text: 'sk-abcdefgh1234' }, 2)], {
      ...as(ALICE),
      'mcp-protocol-version': '2025-03-26',
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual([
      { jsonrpc: '2.0', id: 1, error: expect.objectContaining({ code: -32005, message: expect.stringMatching(/^Not run/) }) },
      { jsonrpc: '2.0', id: 2, error: expect.objectContaining({ code: -32005, message: expect.stringContaining('"no-keys"') }) },
    ]);
    expect(remote.calls.length).toBe(before);
  });
});
