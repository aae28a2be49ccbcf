import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server as HttpServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { connectClient, eventually } from '../../helpers/mcp.js';
import { CHAT, UPSTREAM_CHAT, chatBody, chatCompletion, post } from '../../helpers/routing-harness.js';

const here = dirname(fileURLToPath(import.meta.url));

/** Secrets of every kind the gateway holds or is handed; the shortest (8 characters) and ones that need escaping included. */
const S = {
  remoteBearer: 'remote-bearer-token-77f1',
  remoteShort: 'k7&z-8ch',
  envLong: 'env-secret-value-0b5e9c',
  envShort: 'q9#x-8ch',
  envQuoted: 'a"quoted\\env/secret',
  providerHeader: 'org-secret-header-99d2',
  callerKey: 'sk-caller "quoted\\ key 0042',
  callerBearer: 'sk-bare-bearer-token-3141',
  admin: 'secrets-admin-token-0123456789abcdef01',
};

/** Every spelling of a value that must never appear. */
function spellings(value: string): string[] {
  const json = JSON.stringify(value).slice(1, -1);
  return [...new Set([value, json, JSON.stringify(json).slice(1, -1), encodeURIComponent(value)])];
}

function expectClean(text: string, what: string): void {
  for (const value of Object.values(S)) for (const form of spellings(value)) expect(text.includes(form), `${what} holds ${JSON.stringify(form)}`).toBe(false);
}

/** A remote tool server (stateless Streamable HTTP) that answers the credentials it receives. */
function remoteToolServer(): Promise<{ server: HttpServer; url: string }> {
  const build = () => {
    const server = new Server({ name: 'echo-headers', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [
        { name: 'headers', description: 'Answers its credentials', inputSchema: { type: 'object' } },
        { name: 'fail', description: 'Fails quoting them', inputSchema: { type: 'object' } },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      const h = extra.requestInfo?.headers ?? {};
      const got = { authorization: h.authorization, key: h['x-api-key'] };
      if (req.params.name === 'fail')
        throw new McpError(-32001, `refused: ${got.authorization} / ${got.key}`, { got, url: `https://x.example/?k=${encodeURIComponent(String(got.key))}` });
      return { content: [{ type: 'text', text: JSON.stringify(got) }], structuredContent: got, _meta: { echoed: `${got.authorization}` } };
    });
    return server;
  };
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const server = build();
    res.on('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined);
  });
  return new Promise((resolve) => http.listen(0, '127.0.0.1', () => resolve({ server: http, url: `http://127.0.0.1:${(http.address() as { port: number }).port}/mcp` })));
}

describe('no secret reaches a caller or a log line, in any escaping', () => {
  let gw: TestGateway;
  let upstream: FakeUpstream;
  let remote: { server: HttpServer; url: string };
  let client: Client;

  beforeAll(async () => {
    upstream = await new FakeUpstream().start();
    remote = await remoteToolServer();
    gw = await startGateway({
      logging: { level: 'debug' },
      auth: { adminToken: S.admin },
      providers: { openai: { baseUrl: `${upstream.url}/v1`, headers: { 'OpenAI-Organization': S.providerHeader } } },
      mcpServers: {
        remote: { url: remote.url, headers: { Authorization: `Bearer ${S.remoteBearer}`, 'X-Api-Key': S.remoteShort } },
        proc: {
          command: process.execPath,
          args: [join(here, '..', '..', 'helpers', 'echo-credentials-tool-server.mjs')],
          env: { ECHO_VARS: 'LONG,SHORT,QUOTED', LONG: S.envLong, SHORT: S.envShort, QUOTED: S.envQuoted },
        },
      },
    });
    client = await connectClient(`${gw.url}/mcp`);
    await eventually(async () => (await client.listTools()).tools.length === 4, 15_000, 'both tool servers');
  });
  afterAll(async () => {
    await client?.close();
    await gw?.close();
    await upstream?.stop();
    await new Promise((r) => remote?.server.close(r));
  });

  it('tool results relayed from a remote server do not carry its configured headers (the bare bearer token and an 8-character key included)', async () => {
    const result = await client.callTool({ name: 'remote__headers', arguments: {} });
    const text = JSON.stringify(result);
    expectClean(text, 'the tool result');
    expect(text).toContain('[REDACTED]');
    expect((result.structuredContent as Record<string, string>).authorization).toMatch(/^(Bearer )?\[REDACTED\]$/);
  });

  it('JSON-RPC errors relayed from a remote server are masked in message and data', async () => {
    const err = await client.callTool({ name: 'remote__fail', arguments: {} }).then(
      (r) => r,
      (e) => e,
    );
    const text = JSON.stringify({ message: err.message, data: err.data, result: err.content });
    expectClean(text, 'the JSON-RPC error');
    expect(text).toContain('[REDACTED]');
  });

  it("a process server's env values (short and quoted ones too) are masked in results, errors and its stderr lines", async () => {
    const result = await client.callTool({ name: 'proc__env', arguments: {} });
    expectClean(JSON.stringify(result), 'the tool result');
    const failed = await client.callTool({ name: 'proc__fail', arguments: {} }).then(
      (r) => r,
      (e) => e,
    );
    expectClean(JSON.stringify({ message: failed.message, data: failed.data, content: failed.content }), 'the JSON-RPC error');
    const stderr = await eventually(() => gw.logs.records().find((r) => r.msg === 'tool server stderr' && r.mcpServer === 'proc'), 5000, 'the stderr line');
    expect(stderr.stderr).toContain('[REDACTED]');
  });

  it('providers.<id>.headers values and the caller key (with " and \\) are masked in error.message and error.debug, JSON-escaped or URL-encoded', async () => {
    upstream.on('POST /v1/chat/completions', (req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: {
            message: `bad org ${String(req.headers['openai-organization'])} for key ${String(req.headers.authorization)} (${encodeURIComponent(String(req.headers.authorization))})`,
            type: 'invalid_request_error',
          },
        }),
      );
    });
    const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai', 'x-gateway-api-key': S.callerKey, 'x-gateway-debug': 'true' });
    expect(res.status).toBe(400);
    expectClean(res.text, 'the error answer');
    expect(res.json.error.message).toContain('[REDACTED]');
    expect(JSON.stringify(res.json.error.debug)).toContain('[REDACTED]');
  });

  it('a bare bearer token echoed in a successful answer is masked', async () => {
    upstream.on('POST /v1/chat/completions', (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(chatCompletion(`you sent ${String(req.headers.authorization).slice(7)}`)));
    });
    const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai', authorization: `Bearer ${S.callerBearer}` });
    expect(res.status).toBe(200);
    expect(res.json.choices[0].message.content).toBe('you sent [REDACTED]');
    expectClean(res.text, 'the answer');
  });

  it('no log line holds any of them', async () => {
    expectClean(gw.logs.text, 'the log');
  });
});

describe('values shorter than 8 characters are not secrets: masked nowhere', () => {
  const T = { env: 'q9', header: 'z7k', bearer: 't3' };
  let gw: TestGateway;
  let remote: { server: HttpServer; url: string };
  let client: Client;

  beforeAll(async () => {
    remote = await remoteToolServer();
    gw = await startGateway({
      logging: { level: 'debug' },
      mcpServers: {
        remote: { url: remote.url, headers: { Authorization: `Bearer ${T.bearer}`, 'X-Api-Key': T.header } },
        proc: { command: process.execPath, args: [join(here, '..', '..', 'helpers', 'echo-credentials-tool-server.mjs')], env: { ECHO_VARS: 'TINY,NUM', TINY: T.env, NUM: '1' } },
      },
    });
    client = await connectClient(`${gw.url}/mcp`);
    await eventually(async () => (await client.listTools()).tools.length === 4, 15_000, 'both tool servers');
  });
  afterAll(async () => {
    await client?.close();
    await gw?.close();
    await new Promise((r) => remote?.server.close(r));
  });

  it("a process server's short env value is relayed as it is, in structured content, text and errors", async () => {
    const result = await client.callTool({ name: 'proc__env', arguments: {} });
    expect(result.structuredContent).toEqual({ TINY: 'q9', NUM: '1' });
    const [json, joined] = (result.content as Array<{ text: string }>).map((c) => c.text);
    expect(JSON.parse(json!)).toEqual({ TINY: 'q9', NUM: '1' });
    expect(joined).toBe('q9 | 1');
    const failed = await client.callTool({ name: 'proc__fail', arguments: {} }).then(
      (r) => r,
      (e) => e,
    );
    expect(failed.data.values).toEqual({ TINY: 'q9', NUM: '1' });
  });

  it("a remote server's short header values (a 2-character bearer credential too) are relayed as they are", async () => {
    const result = await client.callTool({ name: 'remote__headers', arguments: {} });
    expect(result.structuredContent).toEqual({ authorization: 'Bearer t3', key: 'z7k' });
    expect(JSON.stringify(result)).not.toContain('[REDACTED]');
  });
});

/** Keys self-hosted backends accept (the OpenAI SDK insists on one): ordinary words, shorter than 8 characters. */
const PLACEHOLDER_KEYS = ['ollama', 'chat', 'lo', 'EMPTY'];

describe('a short placeholder provider key leaves good answers as they are', () => {
  let gw: TestGateway;
  let upstream: FakeUpstream;
  const body = JSON.stringify({
    id: 'chatcmpl-up1',
    object: 'chat.completion',
    created: 1732000000,
    model: 'ollama/llama3',
    choices: [{ index: 0, message: { role: 'assistant', content: 'lo, chat with ollama: EMPTY' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
  });
  const chunk = (content: string) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-up1', object: 'chat.completion.chunk', created: 1732000000, model: 'ollama/llama3', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
  const chunks = [chunk('lo'), chunk('chat'), chunk(' ollama'), chunk('EMPTY'), 'data: [DONE]\n\n'];

  beforeAll(async () => {
    upstream = await new FakeUpstream().start();
    upstream.on(UPSTREAM_CHAT, (req, res) => {
      if (req.json().stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const c of chunks) res.write(c);
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    gw = await startGateway({ logging: { level: 'debug' }, providers: { openai: { baseUrl: `${upstream.url}/v1` } } });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });

  it('a 200 answer and its stream chunks are byte-identical to what a long unrelated key gets', async () => {
    const control = await post(gw.url, CHAT, chatBody({ model: 'ollama/llama3' }), { 'x-gateway-provider': 'openai', authorization: 'Bearer sk-unrelated-control-key-0001' });
    const controlStream = await post(gw.url, CHAT, chatBody({ model: 'ollama/llama3', stream: true }), {
      'x-gateway-provider': 'openai',
      authorization: 'Bearer sk-unrelated-control-key-0001',
    });
    expect(control.json).toEqual(JSON.parse(body));
    expect(controlStream.events.map((e) => e.choices[0].delta.content)).toEqual(['lo', 'chat', ' ollama', 'EMPTY']);
    for (const key of PLACEHOLDER_KEYS)
      for (const header of [{ authorization: `Bearer ${key}` }, { 'x-gateway-api-key': key }] as Array<Record<string, string>>) {
        const what = JSON.stringify(header);
        const res = await post(gw.url, CHAT, chatBody({ model: 'ollama/llama3' }), { 'x-gateway-provider': 'openai', ...header });
        expect(res.status, what).toBe(200);
        expect(res.text, what).toBe(control.text);
        const streamed = await post(gw.url, CHAT, chatBody({ model: 'ollama/llama3', stream: true }), { 'x-gateway-provider': 'openai', ...header });
        expect(streamed.status, what).toBe(200);
        expect(streamed.text, what).toBe(controlStream.text);
      }
    expect(gw.logs.text).not.toContain('[REDACTED]');
  });

  it("debug fields' member names stay as they are with a short key", async () => {
    upstream.on(UPSTREAM_CHAT, { status: 400, json: { error: { message: 'bad request for chat', type: 'invalid_request_error' } } });
    const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai', authorization: 'Bearer status', 'x-gateway-debug': 'true' });
    expect(res.status).toBe(400);
    expect(res.text).not.toContain('[REDACTED]');
    expect(res.json.error.debug).toHaveProperty('upstream_status', 400);
  });

  it('an empty bearer value: the message still says "Authorization: Bearer <key>"', async () => {
    const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai', authorization: 'Bearer ' });
    expect(res.status).toBe(401);
    expect(res.json.error.message).toContain('send it in x-gateway-api-key or Authorization: Bearer <key>.');
    expect(res.text).not.toContain('[REDACTED]');
  });

  it('a key of 8 characters echoed by the upstream in an error is masked in every escaping', async () => {
    const key = 'k8"\\y/%+';
    const allU = (v: string) => v.replace(/[\s\S]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    upstream.on(UPSTREAM_CHAT, (req, res) => {
      const got = String(req.headers.authorization).slice('Bearer '.length);
      res.writeHead(400, { 'content-type': 'application/json' });
      // raw inside the JSON text, JSON-escaped as a member, \u-escaped and URL-encoded
      res.end(
        `{"error":{"message":${JSON.stringify(`bad key ${got}`)},"type":"invalid_request_error","param":"${allU(got)}","url":"?k=${encodeURIComponent(got)}"},"raw":${JSON.stringify(got)}}`,
      );
    });
    const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai', authorization: `Bearer ${key}`, 'x-gateway-debug': 'true' });
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain('[REDACTED]');
    const json = JSON.stringify(key).slice(1, -1);
    for (const form of [key, json, JSON.stringify(json).slice(1, -1), allU(key), JSON.stringify(allU(key)).slice(1, -1), encodeURIComponent(key)]) {
      expect(res.text.includes(form), form).toBe(false);
      expect(gw.logs.text.includes(form), form).toBe(false);
    }
  });
});
