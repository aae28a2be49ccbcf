/**
 * A tool loop in the request's trace: each model call (its client span) and each tool call (an
 * execute_tool span) are in the request's trace, under its server span.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { eventually } from '../../helpers/mcp.js';
import type { TestGateway } from '../../helpers/start-gateway.js';
import { startLoopGateway, type LoopGateway } from './loop-gateway.js';
import { MCP_TOOL, plan } from './fake-models.js';

type Span = { traceId: string; spanId: string; parentSpanId: string; name: string; kind: number };

/** An OTLP/HTTP JSON receiver keeping every span. */
async function receiver(): Promise<{ url: string; spans: Span[]; server: Server }> {
  const spans: Span[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      for (const rs of body.resourceSpans ?? [])
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? []) spans.push({ traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId ?? '', name: s.name, kind: s.kind });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, server };
}

describe('a tool loop in the trace', () => {
  let otlp: Awaited<ReturnType<typeof receiver>>;
  let gw: TestGateway;
  let loop: LoopGateway;

  beforeAll(async () => {
    otlp = await receiver();
    loop = await startLoopGateway(() => ({ observability: { otlp: { endpoint: otlp.url, protocol: 'http/json', serviceName: 'tool-loop-trace' } } }));
    ({ gw } = loop);
  });
  afterAll(async () => {
    await loop?.close();
    otlp?.server.closeAllConnections();
    await new Promise<void>((resolve) => otlp?.server.close(() => resolve()) ?? resolve());
  });

  it('both model calls and the tool call are spans of the request’s trace, under its server span', async () => {
    plan.tool = 'echo';
    plan.args = { text: 'traced' };
    const traceId = Buffer.from(Array.from({ length: 16 }, (_, i) => i + 1)).toString('hex');
    const client = new OpenAI({
      baseURL: `${gw.url}/v1`,
      apiKey: 'k',
      defaultHeaders: { 'x-gateway-provider': 'deepseek', traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
      maxRetries: 0,
    });
    await client.responses.create({ model: 'm', input: 'Echo', tools: [MCP_TOOL] });
    const spans = (await eventually(
      () => {
        const found = otlp.spans.filter((s) => s.traceId === traceId);
        return found.some((s) => s.name.startsWith('execute_tool')) && found.filter((s) => s.kind === 3).length >= 2 ? found : undefined;
      },
      10_000,
      'the loop spans',
    ))!;
    const server = spans.find((s) => s.kind === 2)!;
    const inRequest = (span: Span): boolean => {
      for (let at: Span | undefined = span; at; at = spans.find((s) => s.spanId === at!.parentSpanId)) if (at.spanId === server.spanId) return true;
      return false;
    };
    const tool = spans.find((s) => s.name === 'execute_tool echo')!;
    expect(inRequest(tool)).toBe(true);
    const modelCalls = spans.filter((s) => s.kind === 3);
    expect(modelCalls.length).toBe(2);
    expect(modelCalls.every(inRequest)).toBe(true);
  });
});
