import { randomUUID } from 'node:crypto';
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
import { HttpToolServer } from '../../helpers/http-tool-server.js';
import { startHttpToolServer, stdioToolServerEntry } from '../../helpers/conformance-suite.js';
import { eventually, textOf } from '../../helpers/mcp.js';
import { MCP } from '../../../src/features/mcp/mcp-services.js';
import { subscriptionValueName } from '../../../src/features/mcp/relay/subscription-holders.js';

const KEY = 'aggregate-roaming-key-0123456789';
const OTHER = 'aggregate-roaming-other-0123456789';

const post = (base: string, sessionId: string, key: string) =>
  fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      'x-api-key': key,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
  });

describe.each(['redis', 'postgres'] as const)('/mcp sessions on any instance (%s shared): every request of one client alternates between two gateways', (shared) => {
  let remote: HttpToolServer;
  let conf: Awaited<ReturnType<typeof startHttpToolServer>>;
  let a: TestGateway;
  let b: TestGateway;
  let alone: TestGateway;
  const prefix = `gw-test-${randomUUID()}:`;
  const schema = `gw_mcp_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  let config: (share: boolean) => Record<string, unknown>;

  beforeAll(async () => {
    remote = await new HttpToolServer().start();
    conf = await startHttpToolServer();
    config = (share: boolean) => ({
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
      mcpServers: { remote: { url: remote.url }, conf: { url: conf.url }, proc: stdioToolServerEntry() },
    });
    [a, b, alone] = await Promise.all([startGateway(config(true)), startGateway(config(true)), startGateway(config(false))]);
    for (const gw of [a, b]) await eventually(async () => (await fetch(`${gw.url}/ready`)).status === 200, 15_000, 'the tool servers');
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close(), alone?.close()]);
    await remote?.stop();
    await conf?.stop();
    await dropSharedState(shared, prefix, schema);
  });

  it('serves one /mcp session from both instances: lists, calls, progress, the server stream and its list changes', async () => {
    const seen: string[] = [];
    const client = new Client({ name: 'roaming-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), { fetch: alternating([a.url, b.url], seen), requestInit: { headers: { 'x-api-key': KEY } } }));
    let listChanged = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged++);
    try {
      for (let i = 0; i < 4; i++) {
        const names = (await client.listTools()).tools.map((t) => t.name);
        expect(names).toEqual(expect.arrayContaining(['remote__echo', 'proc__test_simple_text']));
        expect(textOf(await client.callTool({ name: 'remote__echo', arguments: { text: `r${i}` } }))).toBe(`echo: r${i}`);
        const progress: Progress[] = [];
        expect(textOf(await client.callTool({ name: 'proc__test_slow', arguments: { ms: 0 } }, undefined, { onprogress: (p) => progress.push(p) }))).toBe('done');
        expect(progress).toHaveLength(4);
      }
      // A change of the server's tools reaches the server stream (GET), on whichever instance it was opened.
      await eventually(() => seen.some((s) => s.startsWith('GET')), 5000, 'the server stream');
      remote.addTool('roaming_tool');
      await eventually(() => listChanged >= 1, 5000, 'tools/list_changed');
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('remote__roaming_tool');
      const ports = new Set(seen.map((s) => s.split(' ')[1]));
      expect(ports).toEqual(new Set([new URL(a.url).port, new URL(b.url).port]));
      expect(seen.filter((s) => s.startsWith('POST')).length).toBeGreaterThan(10);
    } finally {
      await client.close();
    }
  });

  it("a tool server's requests reach the client and its answers the server, whichever instance each goes to", async () => {
    const seen: string[] = [];
    const client = new Client({ name: 'asked-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), { fetch: alternating([a.url, b.url], seen), requestInit: { headers: { 'x-api-key': KEY } } }));
    let n = 0;
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', content: { type: 'text', text: `answer ${++n}` }, model: 'm' }));
    try {
      for (let i = 0; i < 3; i++) {
        for (const server of ['conf', 'proc']) {
          const result = await client.callTool({ name: `${server}__test_sampling`, arguments: { prompt: 'p' } });
          expect(textOf(result)).toBe(`LLM response: answer ${n}`);
        }
      }
      expect(n).toBe(6);
      // An answer larger than a PostgreSQL notification carries goes through the store.
      const big = 'x'.repeat(20_000);
      client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', content: { type: 'text', text: big }, model: 'm' }));
      expect(textOf(await client.callTool({ name: 'conf__test_sampling', arguments: { prompt: 'p' } }))).toBe(`LLM response: ${big}`);
      // The log level set through one instance holds on the other.
      const logs: unknown[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (note) => void logs.push(note.params.data));
      await client.setLoggingLevel('error');
      for (let i = 0; i < 4; i++) await client.callTool({ name: `${i % 2 ? 'conf' : 'proc'}__test_tool_with_logging`, arguments: {} });
      expect(logs).toEqual([]);
      await client.setLoggingLevel('info');
      for (let i = 0; i < 4; i++) await client.callTool({ name: `${i % 2 ? 'conf' : 'proc'}__test_tool_with_logging`, arguments: {} });
      expect(logs).toHaveLength(12);
      // The answers (POSTs of their own) went to both instances.
      expect(new Set(seen.map((s) => s.split(' ')[1]))).toEqual(new Set([new URL(a.url).port, new URL(b.url).port]));
    } finally {
      await client.close();
    }
  }, 30_000);

  it('a log level set through one instance holds for the next call through the other, even before the instances tell each other', async () => {
    // The instances' messages about the session's state are held back until the calls are done.
    const held: Array<() => void> = [];
    const buses = [a, b].map((gw) => gw.gateway.services.require(MCP).parts!.bus);
    const deliver = buses.map((bus) => bus.onMessage!);
    buses.forEach((bus, i) => {
      bus.onMessage = (message) => (message.kind === 'state' && !message.op ? held.push(() => deliver[i]!(message)) : deliver[i]!(message));
    });
    const seen: string[] = [];
    const client = new Client({ name: 'level-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), { fetch: alternating([a.url, b.url], seen), requestInit: { headers: { 'x-api-key': KEY } } }));
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (note) => void logs.push(note.params.data));
    try {
      await client.setLoggingLevel('info');
      for (let i = 0; i < 4; i++) await client.callTool({ name: `${i % 2 ? 'conf' : 'proc'}__test_tool_with_logging`, arguments: {} });
      expect(logs).toHaveLength(12);
      expect(held.length).toBeGreaterThan(0);
      await client.setLoggingLevel('error');
      for (let i = 0; i < 4; i++) await client.callTool({ name: `${i % 2 ? 'conf' : 'proc'}__test_tool_with_logging`, arguments: {} });
      expect(logs).toHaveLength(12);
      expect(new Set(seen.map((s) => s.split(' ')[1]))).toEqual(new Set([new URL(a.url).port, new URL(b.url).port]));
    } finally {
      buses.forEach((bus, i) => (bus.onMessage = deliver[i]));
      for (const release of held) release();
      await client.close();
    }
  }, 30_000);

  it('two subscriptions made at once through the two instances: both are kept, and unsubscribes that cross over end both', async () => {
    const seen: string[] = [];
    const client = new Client({ name: 'twin-subscriber', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), { fetch: alternating([a.url, b.url], seen), requestInit: { headers: { 'x-api-key': KEY } } });
    await client.connect(transport);
    const uris = ['mcpgw://conf/test://watched-resource', 'mcpgw://conf/test://another-watched'];
    const bus = a.gateway.services.require(MCP).parts!.bus;
    const holders = () => Promise.all(['test://watched-resource', 'test://another-watched'].map((u) => bus.loadValue(transport.sessionId!, subscriptionValueName('conf', u))));
    const addresses = [a, b].map((gw) => gw.gateway.services.require(MCP).parts!.bus.address);
    try {
      await eventually(() => seen.some((s) => s.startsWith('GET')), 5000, 'the server stream');
      // With and without a request between them, so that in one round each unsubscribe goes to the instance that does not hold it.
      for (const between of [0, 1]) {
        const from = seen.length;
        await Promise.all(uris.map((uri) => client.subscribeResource({ uri })));
        expect(new Set(await holders())).toEqual(new Set(addresses));
        for (let i = 0; i < between; i++) await client.ping();
        await Promise.all(uris.map((uri) => client.unsubscribeResource({ uri })));
        expect(await holders()).toEqual([undefined, undefined]);
        // Neither instance's connection to the server holds a subscription any more.
        for (let i = 0; i < 2; i++) expect(textOf(await client.callTool({ name: 'conf__update_watched', arguments: {} }))).toBe('subscribers: 0');
        expect(new Set(seen.slice(from).map((s) => s.split(' ')[1]))).toEqual(new Set([new URL(a.url).port, new URL(b.url).port]));
      }
    } finally {
      await client.close();
    }
  }, 30_000);

  it('a resource subscription made through either instance: its updates reach the server stream wherever it is, and unsubscribe works through either', async () => {
    const seen: string[] = [];
    const client = new Client({ name: 'subscribing-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), { fetch: alternating([a.url, b.url], seen), requestInit: { headers: { 'x-api-key': KEY } } }));
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
    const uri = 'mcpgw://conf/test://watched-resource';
    const updateEverywhere = async () => textOf(await client.callTool({ name: 'conf__update_watched_everywhere', arguments: {} }));
    try {
      await eventually(() => seen.some((s) => s.startsWith('GET')), 5000, 'the server stream');
      for (let turn = 0; turn < 4; turn++) {
        const from = seen.length;
        // Subscribed through one instance, then again through the other: the subscription moves there (one holder, no double updates).
        await client.subscribeResource({ uri });
        await client.subscribeResource({ uri });
        for (let i = 0; i < 2; i++) {
          const before = updates.length;
          expect(await updateEverywhere()).toBe('sessions told: 1');
          await eventually(() => updates.length === before + 1, 5000, 'resources/updated');
        }
        // Through the instance that does not hold it: ended where it is, before the answer.
        await client.unsubscribeResource({ uri });
        expect(await updateEverywhere()).toBe('sessions told: 0');
        const posts = seen.slice(from).filter((s) => s.startsWith('POST'));
        expect(posts).toHaveLength(6);
        expect(posts[0]).not.toBe(posts[1]);
        expect(posts[4]).not.toBe(posts[1]);
        // Every other turn the other instance holds the subscription (the server stream stays where it is).
        if (turn % 2 === 0) await client.ping();
      }
      await new Promise((r) => setTimeout(r, 200));
      expect(updates).toEqual(Array(8).fill(uri));
      expect(new Set(seen.map((s) => s.split(' ')[1]))).toEqual(new Set([new URL(a.url).port, new URL(b.url).port]));
    } finally {
      await client.close();
    }
  }, 30_000);

  it("the copy of the session holding a subscription outlives its idleness while the client's server stream is open on the other instance", async () => {
    const seen: string[] = [];
    const transport = new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), { fetch: alternating([a.url, b.url], seen), requestInit: { headers: { 'x-api-key': KEY } } });
    const client = new Client({ name: 'idle-subscriber', version: '1.0.0' });
    await client.connect(transport);
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
    const other = new Client({ name: 'updater', version: '1.0.0' });
    await other.connect(new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), { requestInit: { headers: { 'x-api-key': KEY } } }));
    const told = async () => textOf(await other.callTool({ name: 'conf__update_watched_everywhere', arguments: {} }));
    const bases = [a, b];
    try {
      await eventually(() => seen.some((s) => s.startsWith('GET')), 5000, 'the server stream');
      const streamPort = seen.find((s) => s.startsWith('GET'))!.split(' ')[1];
      // The subscribe goes to the instance that does not hold the server stream.
      if (new URL(bases[seen.length % 2]!.url).port === streamPort) await client.ping();
      const holder = bases[seen.length % 2]!;
      await client.subscribeResource({ uri: 'mcpgw://conf/test://watched-resource' });
      expect(await told()).toBe('sessions told: 1');
      // Unused for longer than the idle limit, as far as the holder's copy knows; the sweep runs.
      const legacy = holder.gateway.services.require(MCP).parts!.legacy as any;
      const copy = legacy.sessions.get(transport.sessionId);
      copy.lastSeen = 0;
      legacy.sweep();
      await new Promise((r) => setTimeout(r, 500));
      expect(legacy.sessions.get(transport.sessionId)).toBe(copy);
      expect(copy.lastSeen).toBeGreaterThan(0);
      const before = updates.length;
      expect(await told()).toBe('sessions told: 1');
      await eventually(() => updates.length === before + 1, 5000, 'resources/updated');
      // Nobody listens any more: the next sweep ends the copy, and its connection to the tool server (which held the subscription).
      const conf = holder.gateway.services.require(MCP).parts!.pool.get('conf')!;
      const links = conf.linkCount;
      await client.close();
      await eventually(
        () => {
          copy.lastSeen = 0;
          legacy.sweep();
          return !legacy.sessions.has(transport.sessionId);
        },
        10_000,
        'the copy to end',
      );
      await eventually(() => conf.linkCount === links - 1, 5000, 'the connection to end');
    } finally {
      await client.close();
      await other.close();
    }
  }, 30_000);

  it('when the instance holding subscriptions stops, subscribe and unsubscribe through another answer at once (no dead holder to wait for) and updates flow', async () => {
    const c = await startGateway(config(true));
    let stopped = false;
    try {
      await eventually(async () => (await fetch(`${c.url}/ready`)).status === 200, 15_000, 'the tool servers');
      let target = c.url;
      const seen: string[] = [];
      const transport = new StreamableHTTPClientTransport(new URL(`${c.url}/mcp`), {
        fetch: (input, init) => {
          const url = new URL(String(input));
          url.host = new URL(target).host;
          seen.push(`${init?.method ?? 'GET'} ${url.port}`);
          return fetch(url, init);
        },
        requestInit: { headers: { 'x-api-key': KEY } },
      });
      const client = new Client({ name: 'outliving-subscriber', version: '1.0.0' });
      await client.connect(transport);
      const updates: string[] = [];
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
      const watched = 'mcpgw://proc/test://watched-resource';
      const other = 'mcpgw://proc/test://other-resource';
      await client.subscribeResource({ uri: watched });
      await client.subscribeResource({ uri: other });
      const bus = b.gateway.services.require(MCP).parts!.bus;
      const holderOf = (uri: string) => bus.loadValue(transport.sessionId!, subscriptionValueName('proc', uri));
      const record = async () => `${await holderOf('test://watched-resource')} ${await holderOf('test://other-resource')}`;
      const cAddress = c.gateway.services.require(MCP).parts!.bus.address;
      expect(await record()).toBe(`${cAddress} ${cAddress}`);
      // The client turns to b; c stops (its server stream ends, the client opens it again on b).
      target = b.url;
      stopped = true;
      await c.close();
      expect(await record()).not.toContain(cAddress);
      await eventually(() => seen.some((s) => s === `GET ${new URL(b.url).port}`), 10_000, 'the server stream on b');
      let started = Date.now();
      await client.subscribeResource({ uri: watched });
      expect(Date.now() - started).toBeLessThan(2000);
      started = Date.now();
      await client.unsubscribeResource({ uri: other });
      expect(Date.now() - started).toBeLessThan(2000);
      expect(textOf(await client.callTool({ name: 'proc__update_watched', arguments: {} }))).toBe('subscribers: 1');
      await eventually(() => updates.length === 1, 5000, 'resources/updated');
      expect(updates).toEqual([watched]);
      await client.unsubscribeResource({ uri: watched });
      expect(textOf(await client.callTool({ name: 'proc__update_watched', arguments: {} }))).toBe('subscribers: 0');
      await client.close();
    } finally {
      if (!stopped) await c.close();
    }
  }, 40_000);

  it("another caller's id, an instance that does not share the key, or a forged id: 404", async () => {
    const client = new Client({ name: 'c', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), { requestInit: { headers: { 'x-api-key': KEY } } });
    await client.connect(transport);
    try {
      const id = transport.sessionId!;
      expect((await post(b.url, id, KEY)).status).toBe(200);
      expect((await post(b.url, id, OTHER)).status).toBe(404);
      expect((await post(alone.url, id, KEY)).status).toBe(404);
      expect((await post(b.url, `${id.slice(0, -4)}AAAA`, KEY)).status).toBe(404);
      // The session's id names no tool server: /mcp/<server> does not take it.
      const pinned = await fetch(`${b.url}/mcp/remote`, {
        method: 'POST',
        headers: {
          'x-api-key': KEY,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': id,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
      });
      expect(pinned.status).toBe(404);
    } finally {
      await client.close();
    }
  });

  it('a session ended (DELETE) on one instance is ended on the other', async () => {
    const client = new Client({ name: 'c', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), { requestInit: { headers: { 'x-api-key': KEY } } });
    await client.connect(transport);
    const id = transport.sessionId!;
    expect((await post(b.url, id, KEY)).status).toBe(200);
    await transport.terminateSession();
    await client.close();
    expect((await post(a.url, id, KEY)).status).toBe(404);
    // B served the session a moment ago: it looks at the shared record again within a second.
    await eventually(async () => (await post(b.url, id, KEY)).status === 404, 3000, 'the end on the other instance');
  });
});
