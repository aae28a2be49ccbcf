import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FakeUpstream, sseChunks } from '../helpers/fake-upstream.js';
import { fixtureJson } from '../helpers/fixtures.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { HttpToolServer } from '../helpers/http-tool-server.js';
import { connectClient, eventually as eventuallyMaybe, textOf } from '../helpers/mcp.js';
import { TRACING } from '../../src/kernel/engine/tracing.js';

const KEY = 'sk-tracing-test-key-0001';

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  status: { code?: number; message?: string };
  attributes: Record<string, string | number | boolean>;
  service: string;
}

/** An OTLP/HTTP receiver: keeps every export request (path, content type, raw body) and the spans of JSON exports. */
class OtlpReceiver {
  readonly exports: Array<{ path: string; contentType: string; body: Buffer }> = [];
  readonly spans: ReceivedSpan[] = [];
  private server?: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const contentType = String(req.headers['content-type'] ?? '');
        this.exports.push({ path: req.url ?? '', contentType, body });
        if (contentType.includes('json')) this.collect(JSON.parse(body.toString('utf8')));
        res.writeHead(200, { 'content-type': contentType.includes('json') ? 'application/json' : 'application/x-protobuf' });
        res.end(contentType.includes('json') ? '{}' : '');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  private collect(request: any): void {
    for (const rs of request.resourceSpans ?? []) {
      const service = rs.resource?.attributes?.find((a: any) => a.key === 'service.name')?.value?.stringValue;
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          const attributes: Record<string, string | number | boolean> = {};
          for (const a of s.attributes ?? []) {
            const v = a.value ?? {};
            attributes[a.key] = v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.doubleValue ?? v.boolValue));
          }
          this.spans.push({ traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId ?? '', name: s.name, kind: s.kind, status: s.status ?? {}, attributes, service });
        }
      }
    }
  }

  inTrace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

/** Waits until `check` finds something (polling the receiver). */
async function eventually<T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
  return (await eventuallyMaybe(check, timeoutMs, what)) as T;
}

const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

function randomHex(bytes: number): string {
  return Buffer.from(Array.from({ length: bytes }, () => Math.floor(Math.random() * 256))).toString('hex');
}

describe('traces over OTLP/HTTP (observability.otlp.endpoint set, http/json)', () => {
  let receiver: OtlpReceiver;
  let upstream: FakeUpstream;
  let down: FakeUpstream;
  let tools: HttpToolServer;
  let gw: TestGateway;

  beforeAll(async () => {
    receiver = await new OtlpReceiver().start();
    upstream = await new FakeUpstream()
      .on('POST /v1/chat/completions', (req, res) => {
        if (req.json().stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          const base = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini-2024-07-18' };
          for (const line of sseChunks([
            { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }] },
            { ...base, choices: [], usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } },
          ]))
            res.write(line);
          res.end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(fixtureJson('openai', 'chat')));
      })
      .start();
    down = await new FakeUpstream().on('POST /chat/completions', { json: { error: { message: 'overloaded' } }, status: 503 }).start();
    tools = await new HttpToolServer().start();
    gw = await startGateway({
      observability: { otlp: { endpoint: receiver.url, protocol: 'http/json', serviceName: 'gateway-under-test' } },
      providers: { openai: { baseUrl: `${upstream.url}/v1` }, groq: { baseUrl: down.url, apiKey: 'gsk-tracing-down-0002' } },
      configs: { 'groq-then-openai': { strategy: { mode: 'fallback' }, targets: [{ provider: 'groq' }, { provider: 'openai', api_key: KEY }] } },
      mcpServers: { tools: { url: tools.url } },
      // The keys the gateway holds serve only requests with a gateway credential.
      auth: { apiKeys: [{ key: 'cfg-tracing-gateway-0001', user: 'tracer@example.com' }] },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await tools?.stop();
    await down?.stop();
    await upstream?.stop();
    await receiver?.stop();
  });

  const sdk = (headers: Record<string, string> = {}) =>
    new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: KEY, defaultHeaders: { 'x-gateway-provider': 'openai', ...headers }, maxRetries: 0 });

  it("continues the caller's traceparent: server span, attempt, client span with GenAI attributes, traceparent sent upstream", async () => {
    const traceId = randomHex(16);
    const callerSpan = randomHex(8);
    const answer = await sdk({ traceparent: `00-${traceId}-${callerSpan}-01` }).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] });
    expect(answer.choices[0]!.message.content).toBe('Hello! How can I help you today?');

    const sent = upstream.received('POST /v1/chat/completions').at(-1)!.headers.traceparent as string;
    expect(sent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    const sentParent = sent.split('-')[2]!;
    expect(sentParent).not.toBe(callerSpan);

    const spans = await eventually(
      () => {
        const found = receiver.inTrace(traceId);
        return found.length >= 3 ? found : undefined;
      },
      10_000,
      'the spans to be exported',
    );
    const server = spans.find((s) => s.kind === SERVER)!;
    expect(server).toMatchObject({ name: 'POST /v1/chat/completions', parentSpanId: callerSpan, service: 'gateway-under-test' });
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/chat/completions',
      'http.response.status_code': 200,
      'gen_ai.system': 'openai',
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
      'gen_ai.usage.input_tokens': 9,
      'gen_ai.usage.output_tokens': 9,
    });
    const attempt = spans.find((s) => s.name === 'attempt openai')!;
    expect(attempt.parentSpanId).toBe(server.spanId);
    const call = spans.find((s) => s.kind === CLIENT)!;
    expect(call.name).toBe('chat gpt-4o-mini');
    expect(call.parentSpanId).toBe(attempt.spanId);
    // The upstream's parent is the client span itself.
    expect(call.spanId).toBe(sentParent);
    expect(call.attributes).toMatchObject({
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
      'gen_ai.usage.input_tokens': 9,
      'gen_ai.usage.output_tokens': 9,
      'server.address': '127.0.0.1',
      'http.response.status_code': 200,
    });
  });

  it("a streamed answer's client span carries the usage the stream ended with", async () => {
    const traceId = randomHex(16);
    const stream = await sdk({ traceparent: `00-${traceId}-${randomHex(8)}-01` }).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const _chunk of stream) {
      // read it whole
    }
    const call = await eventually(() => receiver.inTrace(traceId).find((s) => s.kind === CLIENT), 10_000, 'the client span');
    expect(call.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 7, 'gen_ai.usage.output_tokens': 3 });
  });

  it('one span per target attempt: a failed target is an error span, the fallback the one that answered', async () => {
    const traceId = randomHex(16);
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-gateway-config': 'groq-then-openai',
        'x-gateway-token': 'cfg-tracing-gateway-0001',
        traceparent: `00-${traceId}-${randomHex(8)}-01`,
      },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-provider')).toBe('openai');
    await res.arrayBuffer();
    const spans = await eventually(
      () => {
        const found = receiver.inTrace(traceId);
        return found.filter((s) => s.name.startsWith('attempt ')).length === 2 && found.filter((s) => s.kind === CLIENT).length === 2 ? found : undefined;
      },
      10_000,
      'both attempts',
    );
    const server = spans.find((s) => s.kind === SERVER)!;
    const groq = spans.find((s) => s.name === 'attempt groq')!;
    const openai = spans.find((s) => s.name === 'attempt openai')!;
    expect(groq.parentSpanId).toBe(server.spanId);
    expect(openai.parentSpanId).toBe(server.spanId);
    expect(groq.status.code).toBe(ERROR);
    expect(groq.attributes['error.type']).toBe('provider_error');
    expect(openai.status.code ?? 0).not.toBe(ERROR);
    const groqCall = spans.find((s) => s.kind === CLIENT && s.parentSpanId === groq.spanId)!;
    expect(groqCall.attributes['http.response.status_code']).toBe(503);
    expect(groqCall.status.code).toBe(ERROR);
  });

  it("one span per MCP tool call, with gen_ai.tool.name, inside the /mcp request's trace", async () => {
    const traceId = randomHex(16);
    const client: Client = await connectClient(`${gw.url}/mcp`, { traceparent: `00-${traceId}-${randomHex(8)}-01` });
    try {
      expect(textOf(await client.callTool({ name: 'tools__echo', arguments: { text: 'traced' } }))).toBe('echo: traced');
    } finally {
      await client.close();
    }
    const tool = await eventually(() => receiver.inTrace(traceId).find((s) => s.name === 'execute_tool echo'), 10_000, 'the tool span');
    expect(tool.attributes).toMatchObject({ 'gen_ai.tool.name': 'echo', 'gen_ai.operation.name': 'execute_tool', 'mcp.server': 'tools' });
    const parent = receiver.inTrace(traceId).find((s) => s.spanId === tool.parentSpanId);
    expect(parent).toMatchObject({ kind: SERVER, name: 'POST /mcp' });
  });

  it('a request without traceparent starts a new trace; exports go to <endpoint>/v1/traces as JSON', async () => {
    const before = new Set(receiver.spans.map((s) => s.traceId));
    await sdk().chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] });
    const sent = upstream.received('POST /v1/chat/completions').at(-1)!.headers.traceparent as string;
    const traceId = sent.split('-')[1]!;
    expect(before.has(traceId)).toBe(false);
    const server = await eventually(() => receiver.inTrace(traceId).find((s) => s.kind === SERVER), 10_000, 'the new trace');
    expect(server.parentSpanId).toBe('');
    expect(receiver.exports.every((e) => e.path === '/v1/traces' && e.contentType.startsWith('application/json'))).toBe(true);
  });
});

describe('traces: protobuf export by default, and off without an endpoint', () => {
  it('http/protobuf (the default) posts protobuf to <endpoint>/v1/traces', async () => {
    const receiver = await new OtlpReceiver().start();
    const upstream = await new FakeUpstream().on('POST /v1/chat/completions', { json: fixtureJson('openai', 'chat') }).start();
    const gw = await startGateway({ observability: { otlp: { endpoint: `${receiver.url}/` } }, providers: { openai: { baseUrl: `${upstream.url}/v1` } } });
    try {
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gateway-provider': 'openai', 'x-gateway-api-key': KEY },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    } finally {
      await gw.close(); // flushes the batch
      await upstream.stop();
    }
    await receiver.stop();
    expect(receiver.exports.length).toBeGreaterThan(0);
    expect(receiver.exports.every((e) => e.path === '/v1/traces' && e.contentType === 'application/x-protobuf')).toBe(true);
    const bytes = Buffer.concat(receiver.exports.map((e) => e.body));
    // Strings travel as they are inside protobuf: the span names and GenAI keys are there.
    for (const text of ['POST /v1/chat/completions', 'chat gpt-4o-mini', 'gen_ai.usage.input_tokens', 'gen_ai.response.model'])
      expect(bytes.includes(Buffer.from(text))).toBe(true);
  });

  it('without observability.otlp.endpoint there is no tracing service and no traceparent goes upstream', async () => {
    const upstream = await new FakeUpstream().on('POST /v1/chat/completions', { json: fixtureJson('openai', 'chat') }).start();
    const gw = await startGateway({ providers: { openai: { baseUrl: `${upstream.url}/v1` } } });
    try {
      expect(gw.gateway.services.get(TRACING)).toBeUndefined();
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gateway-provider': 'openai', 'x-gateway-api-key': KEY, traceparent: `00-${randomHex(16)}-${randomHex(8)}-01` },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      expect(upstream.received('POST /v1/chat/completions').at(-1)!.headers.traceparent).toBeUndefined();
    } finally {
      await gw.close();
      await upstream.stop();
    }
  });

  it('an endpoint that is not an http(s) URL is a config error naming the key', async () => {
    await expect(startGateway({ observability: { otlp: { endpoint: 'collector:4318' } } })).rejects.toThrow(/observability\.otlp\.endpoint/);
  });
});
