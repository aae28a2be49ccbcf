import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { alternating, dropSharedState, sharedStoreConfig } from '../../helpers/shared-stores.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { stdioToolServerEntry } from '../../helpers/conformance-suite.js';
import { freePort, spawnGateway, waitForHealth } from '../../helpers/built-gateway.js';
import { eventually, textOf } from '../../helpers/mcp.js';

const KEY = 'process-roaming-key-0123456789';
/** Tool-result guardrails on proc__whoami (which answers the forwarded identity: an email to mask). */
const PIPELINES = mkdtempSync(join(tmpdir(), 'gw-process-roaming-'));
writeFileSync(join(PIPELINES, 'mcp.yaml'), 'name: mcp\nextends: mcp\nconfigure:\n  guardrail: { toolArguments: [], toolResults: [mask-pii], tools: ["proc__whoami"] }\n');
const OTHER = 'process-roaming-other-0123456789';

const request = (base: string, sessionId: string, key: string, method = 'POST') =>
  fetch(`${base}/mcp/proc`, {
    method,
    headers: {
      'x-api-key': key,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    },
    ...(method === 'POST' ? { body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }) } : {}),
  });

afterAll(() => rmSync(PIPELINES, { recursive: true, force: true }));

describe.each(['redis', 'postgres'] as const)(
  '/mcp/<process server> sessions on any instance (%s shared): every request of one client alternates between two gateways',
  (shared) => {
    let a: TestGateway;
    let b: TestGateway;
    let c: TestGateway;
    let alone: TestGateway;
    const prefix = `gw-test-${randomUUID()}:`;
    const schema = `gw_mcp_${randomUUID().replace(/-/g, '').slice(0, 12)}`;

    const config = (share: boolean) => ({
      logging: { level: 'warn' },
      ...(share ? sharedStoreConfig(shared, prefix, schema) : {}),
      auth: {
        enabled: true,
        type: 'api-key',
        apiKeys: [
          { key: KEY, user: 'roamer@example.com', scopes: ['mcp:read', 'mcp:write'] },
          { key: OTHER, user: 'other@example.com', scopes: ['mcp:read', 'mcp:write'] },
        ],
      },
      // `hang`: calls that take longer than its timeout.
      mcpServers: { proc: stdioToolServerEntry(), hang: { ...stdioToolServerEntry(), timeout: 3000 } },
      guardrails: { 'mask-pii': { action: 'redact', checks: [{ type: 'pii' }] } },
      pipelines: { dir: PIPELINES },
    });

    beforeAll(async () => {
      [a, b, c, alone] = await Promise.all([startGateway(config(true)), startGateway(config(true)), startGateway(config(true)), startGateway(config(false))]);
      for (const gw of [a, b, c]) await eventually(async () => (await fetch(`${gw.url}/ready`)).status === 200, 15_000, 'the tool server');
    }, 60_000);

    afterAll(async () => {
      await Promise.all([a?.close(), b?.close(), c?.close(), alone?.close()]);
      await dropSharedState(shared, prefix, schema);
    });

    it('serves one process session from both instances: calls, progress, sampling, logging, the server stream', async () => {
      const seen: string[] = [];
      const client = new Client({ name: 'roaming-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${a.url}/mcp/proc`), { fetch: alternating([a.url, b.url], seen), requestInit: { headers: { 'x-api-key': KEY } } }),
      );
      const logs: string[] = [];
      const updates: string[] = [];
      let listChanged = 0;
      let asked = 0;
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(String(n.params.data)));
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged++);
      client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', content: { type: 'text', text: `answer ${++asked}` }, model: 'm' }));
      try {
        for (let i = 0; i < 6; i++) {
          expect(textOf(await client.callTool({ name: 'test_simple_text', arguments: {} }))).toBe('This is a simple text response for testing.');
          const progress: Progress[] = [];
          expect(textOf(await client.callTool({ name: 'test_slow', arguments: { ms: 0 } }, undefined, { onprogress: (p) => progress.push(p) }))).toBe('done');
          expect(progress).toHaveLength(4);
        }
        // Server-to-client requests on the call's stream, the answers landing on either instance.
        for (let i = 1; i <= 4; i++) expect(textOf(await client.callTool({ name: 'test_sampling', arguments: { prompt: 'p' } }))).toBe(`LLM response: answer ${i}`);
        // An answer larger than a PostgreSQL notification carries.
        const big = 'x'.repeat(20_000);
        client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', content: { type: 'text', text: big }, model: 'm' }));
        expect(textOf(await client.callTool({ name: 'test_sampling', arguments: { prompt: 'p' } }))).toBe(`LLM response: ${big}`);
        await client.setLoggingLevel('error');
        await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
        await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
        expect(logs).toEqual([]);
        await client.setLoggingLevel('info');
        await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
        await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
        expect(logs).toHaveLength(6);
        // Notifications outside a call reach the server stream (GET), on whichever instance it was opened.
        await eventually(() => seen.some((s) => s.startsWith('GET')), 5000, 'the server stream');
        await client.subscribeResource({ uri: 'test://watched-resource' });
        await client.callTool({ name: 'update_watched', arguments: {} });
        await client.callTool({ name: 'change_tools', arguments: {} });
        await eventually(() => updates.length === 1 && listChanged === 1, 5000, 'resources/updated and tools/list_changed');
        expect((await client.listTools()).tools.length).toBeGreaterThan(0);

        const ports = new Set(seen.map((s) => s.split(' ')[1]));
        expect(ports).toEqual(new Set([new URL(a.url).port, new URL(b.url).port]));
        expect(seen.filter((s) => s.startsWith('POST')).length).toBeGreaterThan(20);
      } finally {
        await client.close();
      }
    }, 60_000);

    it("tool-result guardrails apply where the client's request is held: on the process's instance and on the one that passes it there", async () => {
      const seen: string[] = [];
      const client = new Client({ name: 'roaming-client', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${a.url}/mcp/proc`), { fetch: alternating([a.url, b.url], seen), requestInit: { headers: { 'x-api-key': KEY } } }),
      );
      try {
        const from = seen.length;
        for (let i = 0; i < 4; i++) {
          const result = await client.callTool({ name: 'whoami', arguments: {} });
          expect(textOf(result)).toContain('[REDACTED_EMAIL]');
          expect(textOf(result)).not.toContain('roamer@example.com');
          expect(result._meta).toMatchObject({ 'io.gateway/guardrail-verdict': 'redacted' });
        }
        // The calls went through both instances.
        const ports = new Set(
          seen
            .slice(from)
            .filter((s) => s.startsWith('POST '))
            .map((s) => s.slice(5)),
        );
        expect(ports).toEqual(new Set([new URL(a.url).port, new URL(b.url).port]));
        // Tools outside `tools` pass as they came.
        expect(textOf(await client.callTool({ name: 'test_simple_text', arguments: {} }))).toBe('This is a simple text response for testing.');
      } finally {
        await client.close();
      }
    });

    it('cancels both ways across the instances: the client cancels a call, the server cancels its own request', async () => {
      const client = new Client({ name: 'cancelling-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${a.url}/mcp/proc`), { fetch: alternating([a.url, b.url], []), requestInit: { headers: { 'x-api-key': KEY } } }),
      );
      try {
        for (let i = 0; i < 2; i++) {
          // The call's POST and the cancellation's POST go to different instances (every request alternates).
          const controller = new AbortController();
          const call = client.callTool({ name: 'test_slow', arguments: { ms: 5000 } }, undefined, { signal: controller.signal });
          setTimeout(() => controller.abort(), 300);
          await expect(call).rejects.toThrow();
          await eventually(async () => textOf(await client.callTool({ name: 'slow_status', arguments: {} })) === 'cancelled', 5000, 'the server to see the cancellation');
        }
        // The SDK client ignores a cancellation of request id 0 (`if (!requestId) return`): the server's first request is answered.
        client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', content: { type: 'text', text: 'first' }, model: 'm' }));
        expect(textOf(await client.callTool({ name: 'test_sampling', arguments: { prompt: 'p' } }))).toBe('LLM response: first');
        let cancelledByServer = 0;
        client.setRequestHandler(
          CreateMessageRequestSchema,
          (_req, extra) =>
            new Promise((_resolve, reject) => {
              extra.signal.addEventListener('abort', () => {
                cancelledByServer++;
                reject(new Error('cancelled'));
              });
            }),
        );
        for (let i = 0; i < 2; i++) expect(textOf(await client.callTool({ name: 'test_cancel_client', arguments: {} }))).toMatch(/^gave up: /);
        await eventually(() => cancelledByServer === 2, 3000, 'notifications/cancelled from the server');
      } finally {
        await client.close();
      }
    }, 30_000);

    it("another caller's id, an instance that does not share the key, or a forged id: 404; DELETE through the other instance ends it", async () => {
      const transport = new StreamableHTTPClientTransport(new URL(`${a.url}/mcp/proc`), { requestInit: { headers: { 'x-api-key': KEY } } });
      const client = new Client({ name: 'c', version: '1.0.0' });
      await client.connect(transport);
      const id = transport.sessionId!;
      expect(id.startsWith('p.')).toBe(true);
      const onB = await request(b.url, id, KEY);
      expect(onB.status).toBe(200);
      expect(await onB.text()).toContain('test_simple_text');
      expect((await request(b.url, id, OTHER)).status).toBe(404);
      expect((await request(alone.url, id, KEY)).status).toBe(404);
      expect((await request(b.url, `${id.slice(0, -4)}AAAA`, KEY)).status).toBe(404);
      // The other instance refuses what the session's own transport would refuse.
      const unacceptable = await fetch(`${b.url}/mcp/proc`, { headers: { 'x-api-key': KEY, accept: 'application/json', 'mcp-session-id': id } });
      expect(unacceptable.status).toBe(406);
      const badVersion = await fetch(`${b.url}/mcp/proc`, {
        method: 'POST',
        headers: {
          'x-api-key': KEY,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': id,
          'mcp-protocol-version': '1999-01-01',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(badVersion.status).toBe(400);
      expect(((await badVersion.json()) as { error: { message: string } }).error.message).toContain('Unsupported protocol version');
      expect((await request(b.url, id, KEY, 'DELETE')).status).toBe(200);
      await eventually(async () => (await request(a.url, id, KEY)).status === 404, 3000, 'the session ended on its own instance');
      expect((await request(b.url, id, KEY)).status).toBe(404);
      await client.close();
    });

    it("a call passed to the session's instance that its process never answers ends after the server's timeout, and the process is told to cancel it", async () => {
      const transport = new StreamableHTTPClientTransport(new URL(`${a.url}/mcp/hang`), { requestInit: { headers: { 'x-api-key': KEY } } });
      const client = new Client({ name: 'c', version: '1.0.0' });
      await client.connect(transport);
      try {
        const started = Date.now();
        const call = await fetch(`${b.url}/mcp/hang`, {
          method: 'POST',
          headers: { 'x-api-key': KEY, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId! },
          body: JSON.stringify({ jsonrpc: '2.0', id: 79, method: 'tools/call', params: { name: 'test_slow', arguments: { ms: 40_000 } } }),
        });
        expect(call.status).toBe(200);
        const events = (await call.text())
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => JSON.parse(line.slice(6)));
        const elapsed = Date.now() - started;
        expect(elapsed).toBeGreaterThanOrEqual(2900);
        expect(elapsed).toBeLessThan(20_000);
        expect(events).toEqual([{ jsonrpc: '2.0', id: 79, error: { code: -32004, message: 'Tool server hang did not answer in time.' } }]);
        // The process got notifications/cancelled for it, and the session goes on (through either instance).
        await eventually(async () => textOf(await client.callTool({ name: 'slow_status', arguments: {} })) === 'cancelled', 5000, 'the cancellation');
        const onB = await fetch(`${b.url}/mcp/hang`, {
          method: 'POST',
          headers: { 'x-api-key': KEY, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId! },
          body: JSON.stringify({ jsonrpc: '2.0', id: 80, method: 'tools/call', params: { name: 'test_simple_text', arguments: {} } }),
        });
        expect(await onB.text()).toContain('This is a simple text response for testing.');
      } finally {
        await client.close();
      }
    }, 60_000);

    it('when the instance running the process is gone, the other answers 404 (the client opens a new session)', async () => {
      const transport = new StreamableHTTPClientTransport(new URL(`${c.url}/mcp/proc`), { requestInit: { headers: { 'x-api-key': KEY } } });
      const client = new Client({ name: 'c', version: '1.0.0' });
      await client.connect(transport);
      const id = transport.sessionId!;
      expect((await request(b.url, id, KEY)).status).toBe(200);
      // A call in progress through the other instance when the process's instance stops: it gets an error, its stream ends.
      const call = await fetch(`${b.url}/mcp/proc`, {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': id },
        body: JSON.stringify({ jsonrpc: '2.0', id: 77, method: 'tools/call', params: { name: 'test_slow', arguments: { ms: 20_000 } } }),
      });
      expect(call.status).toBe(200);
      expect(call.headers.get('content-type')).toContain('text/event-stream');
      await c.close();
      const closed = Date.now();
      const events = await call.text();
      // Told as the instance stops (not found out later by the other instance's pings).
      expect(Date.now() - closed).toBeLessThan(2000);
      expect(events).toContain('"id":77');
      expect(events).toContain('-32004');
      await client.close().catch(() => undefined);
      const started = Date.now();
      const gone = await request(b.url, id, KEY);
      expect(gone.status).toBe(404);
      expect(Date.now() - started).toBeLessThan(6000);
      // The contract's body, as for any unknown session.
      expect(await gone.json()).toMatchObject({ status: 'failure', error: { type: 'invalid_request_error', code: 'not_found', param: 'Mcp-Session-Id' } });
    }, 30_000);

    it('when the instance running the process dies (SIGKILL) mid-call, the other one ends the call with an error and then answers 404', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'gw-psess-'));
      writeFileSync(join(dir, 'gateway.json'), JSON.stringify(config(true)));
      const port = await freePort();
      const proc = spawnGateway(['--config', join(dir, 'gateway.json')], { env: { GATEWAY_PORT: String(port) } });
      try {
        const url = `http://127.0.0.1:${port}`;
        await waitForHealth(url, proc, 60_000);
        await eventually(async () => (await fetch(`${url}/ready`)).status === 200, 15_000, 'the tool server');
        const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp/proc`), { requestInit: { headers: { 'x-api-key': KEY } } });
        const client = new Client({ name: 'c', version: '1.0.0' });
        await client.connect(transport);
        const id = transport.sessionId!;
        const call = await fetch(`${b.url}/mcp/proc`, {
          method: 'POST',
          headers: { 'x-api-key': KEY, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': id },
          body: JSON.stringify({ jsonrpc: '2.0', id: 78, method: 'tools/call', params: { name: 'test_slow', arguments: { ms: 15_000 } } }),
        });
        expect(call.status).toBe(200);
        proc.kill();
        await proc.exited;
        const killed = Date.now();
        const events = await call.text();
        expect(events).toContain('"id":78');
        expect(events).toContain('-32004');
        // Found out by the other instance's pings (every 2 s, gone after 6 s without an answer).
        expect(Date.now() - killed).toBeLessThan(15_000);
        expect((await request(b.url, id, KEY)).status).toBe(404);
        await client.close().catch(() => undefined);
      } finally {
        proc.kill();
        rmSync(dir, { recursive: true, force: true });
      }
    }, 120_000);
  },
);
