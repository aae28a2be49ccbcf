import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server as HttpServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { buildGateway, spawnGateway } from '../../helpers/built-gateway.js';
import { connectClient, eventually } from '../../helpers/mcp.js';
import { CHAT, chatBody, post } from '../../helpers/routing-harness.js';

const here = dirname(fileURLToPath(import.meta.url));

/** JSON string escaping without the quotes. */
const J = (s: string) => JSON.stringify(s).slice(1, -1);
/** Every character (UTF-16 unit) as a \u escape. */
const U = (s: string) => s.replace(/[\s\S]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** The spellings a leak would take: JSON-escaped up to 5 times, wholly \u-escaped at up to 3 depths, URL-encoded. */
function spellings(value: string): string[] {
  const out = new Set<string>([value, encodeURIComponent(value)]);
  let j = value;
  let u = U(value);
  for (let depth = 0; depth < 5; depth++) {
    out.add(j);
    j = J(j);
    if (depth < 3) out.add(u);
    u = J(u);
  }
  return [...out];
}

function expectClean(text: string, secrets: string[], what: string): void {
  for (const value of secrets) for (const form of spellings(value)) expect(text.includes(form), `${what} holds ${JSON.stringify(form)}`).toBe(false);
}

/** A remote tool server answering the token of its URL's query and its Authorization token, each written wholly as \u escapes. */
function unicodeEchoServer(): Promise<{ server: HttpServer; url: string }> {
  const build = (query: string | null) => {
    const server = new Server({ name: 'unicode-echo', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'whoami', description: 'Answers its credentials', inputSchema: { type: 'object' } }] }));
    server.setRequestHandler(CallToolRequestSchema, async (_req, extra) => {
      const auth = String(extra.requestInfo?.headers.authorization ?? '');
      return {
        content: [
          { type: 'text', text: `{"authorization":"${U(auth)}","token":"${U(query ?? '')}"}` },
          { type: 'text', text: `{"bare":"${U(auth.slice(7))}"}` },
        ],
      };
    });
    return server;
  };
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const server = build(new URL(req.url ?? '/', 'http://x').searchParams.get('token'));
    res.on('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined);
  });
  return new Promise((resolve) => http.listen(0, '127.0.0.1', () => resolve({ server: http, url: `http://127.0.0.1:${(http.address() as { port: number }).port}/mcp` })));
}

describe('tool-server tokens echoed as \\uXXXX escapes are masked', () => {
  const T = {
    env: 'proc-env-token-"q"\\9f31',
    bearer: 'remote-bearer-"b"\\token-5e1d',
    query: 'query-token-7Hq2+x/9',
  };
  let gw: TestGateway;
  let remote: { server: HttpServer; url: string };
  const clients: Client[] = [];

  beforeAll(async () => {
    remote = await unicodeEchoServer();
    gw = await startGateway({
      logging: { level: 'debug' },
      mcpServers: {
        remote: { url: `${remote.url}?token=${encodeURIComponent(T.query)}&v=2`, headers: { Authorization: `Bearer ${T.bearer}` } },
        proc: { command: process.execPath, args: [join(here, '..', '..', 'helpers', 'echo-credentials-tool-server.mjs')], env: { ECHO_VARS: 'TOKEN,', TOKEN: T.env } },
      },
    });
    const all = await connectClient(`${gw.url}/mcp`);
    clients.push(all);
    await eventually(async () => (await all.listTools()).tools.length === 3, 15_000, 'both tool servers');
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await gw?.close();
    await new Promise((r) => remote?.server.close(r));
  });

  it("a process server's env token, wholly and partly \\u-escaped in its JSON text, reaches the caller as [REDACTED]", async () => {
    const result = await clients[0]!.callTool({ name: 'proc__env', arguments: { spelling: 'unicode' } });
    const texts = (result.content as Array<{ text: string }>).map((c) => c.text);
    expect(texts).toHaveLength(2);
    for (const text of texts) expect(JSON.parse(text)).toEqual({ TOKEN: '[REDACTED]' });
    expectClean(JSON.stringify(result), [T.env], 'the tool result');
  });

  it("a remote server's Authorization token and its URL's query token, \\u-escaped, are masked through /mcp and /mcp/<server>", async () => {
    const one = await connectClient(`${gw.url}/mcp/remote`);
    clients.push(one);
    for (const [client, name] of [
      [clients[0]!, 'remote__whoami'],
      [one, 'whoami'],
    ] as const) {
      const result = await client.callTool({ name, arguments: {} });
      const [both, bare] = (result.content as Array<{ text: string }>).map((c) => JSON.parse(c.text));
      expect(both.authorization).toMatch(/^(Bearer )?\[REDACTED\]$/);
      expect(both.token).toBe('[REDACTED]');
      expect(bare).toEqual({ bare: '[REDACTED]' });
      expectClean(JSON.stringify(result), [T.bearer, T.query], `the result through ${name}`);
    }
  });

  it('no log line holds any of them', () => {
    expectClean(gw.logs.text, Object.values(T), 'the log');
  });
});

describe('a provider key with " and \\ echoed three JSON-escapes deep is masked in error.debug.upstream_body', () => {
  const callerKey = 'sk-caller-"quo\\ted"-key-4242';
  const orgHeader = 'org-"nested"\\header-9911';
  let gw: TestGateway;
  let upstream: FakeUpstream;

  beforeAll(async () => {
    upstream = await new FakeUpstream().start();
    gw = await startGateway({ logging: { level: 'debug' }, providers: { openai: { baseUrl: `${upstream.url}/v1`, headers: { 'OpenAI-Organization': orgHeader } } } });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });

  it('JSON in a JSON string in a JSON string, \\u-escaped and URL-encoded: never in the answer or the log', async () => {
    upstream.on('POST /v1/chat/completions', (req, res) => {
      const key = String(req.headers.authorization).replace(/^Bearer /, '');
      const org = String(req.headers['openai-organization']);
      const inner = JSON.stringify({ key, org, unicode: U(key), url: `https://x.example/?k=${encodeURIComponent(key)}` });
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: JSON.stringify({ detail: inner }), type: 'invalid_request_error' } }));
    });
    const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai', 'x-gateway-api-key': callerKey, 'x-gateway-debug': 'true' });
    expect(res.status).toBe(400);
    expectClean(res.text, [callerKey, orgHeader], 'the error answer');
    // Unwrapped level by level, the values the upstream echoed are masked.
    const body = JSON.parse(res.json.error.debug.upstream_body);
    const inner = JSON.parse(JSON.parse(body.error.message).detail);
    expect(inner.key).toBe('[REDACTED]');
    expect(inner.org).toBe('[REDACTED]');
    expect(inner.unicode).toBe('[REDACTED]');
    expect(inner.url).toBe('https://x.example/?k=[REDACTED]');
    expectClean(gw.logs.text, [callerKey, orgHeader], 'the log');
  });
});

describe('--print-config masks query values of configured URLs', { timeout: 120_000 }, () => {
  let dir: string;

  beforeAll(() => {
    buildGateway();
    dir = mkdtempSync(join(tmpdir(), 'gw-print-query-'));
  }, 240_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a token in a tool server URL, a provider baseUrl, a webhook and the OTLP endpoint is [REDACTED]', async () => {
    const S = { tool: 'mcp-query-token-55aa', base: 'base-url-key-66bb', hook: 'hook-sig-77cc', otlp: 'otlp-auth-88dd' };
    const path = join(dir, 'query.yaml');
    writeFileSync(
      path,
      [
        'providers:',
        `  openai: { baseUrl: "https://llm.example/v1?key=${S.base}" }`,
        'mcpServers:',
        `  tools: { url: "https://tools.example/mcp?token=${S.tool}&region=eu" }`,
        'guardrails:',
        `  hook: { action: deny, checks: [{ type: webhook, url: "https://hook.example/verdict?sig=${S.hook}" }] }`,
        'observability:',
        `  otlp: { endpoint: "https://otel.example:4318?auth=${S.otlp}" }`,
      ].join('\n'),
    );
    const proc = spawnGateway(['--print-config', '--config', path], { env: { GATEWAY_DATA_DIR: join(dir, 'data') } });
    const { code } = await proc.exited;
    expect(code, proc.stderr()).toBe(0);
    const out = proc.stdout();
    for (const value of Object.values(S)) expect(out).not.toContain(value);
    const printed = parse(out);
    expect(printed.mcpServers.tools.url).toBe('https://tools.example/mcp?token=[REDACTED]&region=[REDACTED]');
    expect(printed.providers.openai.baseUrl).toBe('https://llm.example/v1?key=[REDACTED]');
    expect(printed.guardrails.hook.checks[0].url).toBe('https://hook.example/verdict?sig=[REDACTED]');
    expect(printed.observability.otlp.endpoint).toBe('https://otel.example:4318?auth=[REDACTED]');
  });
});
