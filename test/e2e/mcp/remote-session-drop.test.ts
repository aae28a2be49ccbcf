import { createServer, connect, type Server as NetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { HttpToolServer } from '../../helpers/http-tool-server.js';
import { connectClient, eventually, rawPost, textOf } from '../../helpers/mcp.js';

/**
 * A TCP door in front of the tool server, on a port of its own that stays the same: closed, a
 * connection to it is refused and the open ones are cut (the server is down); opened again, the
 * server is back (on the same address).
 */
class Door {
  private server?: NetServer;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly target: number) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  async open(): Promise<this> {
    const server = createServer((socket) => {
      const upstream = connect(this.target, '127.0.0.1');
      for (const s of [socket, upstream]) {
        this.sockets.add(s);
        s.once('close', () => this.sockets.delete(s));
        s.on('error', () => {
          socket.destroy();
          upstream.destroy();
        });
      }
      socket.pipe(upstream).pipe(socket);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }
}

const failureOf = (call: Promise<unknown>) =>
  call.then(
    () => undefined,
    (e: unknown) => e as McpError,
  );

describe('/mcp/<server> of a remote tool server: the next call after its session dropped reconnects and is answered, as on /mcp', () => {
  let remote: HttpToolServer;
  let door: Door;
  let hastyDoor: Door;
  let gw: TestGateway;

  beforeAll(async () => {
    remote = await new HttpToolServer().start();
    const port = Number(new URL(remote.url).port);
    door = await new Door(port).open();
    hastyDoor = await new Door(port).open();
    gw = await startGateway({
      logging: { level: 'error' },
      mcpServers: { remote: { url: door.url, startTimeout: 8000 }, hasty: { url: hastyDoor.url, startTimeout: 400 } },
    });
    await eventually(async () => (await fetch(`${gw.url}/ready`)).status === 200, 15_000, 'the tool servers');
  });
  afterAll(async () => {
    await gw?.close();
    await door?.close();
    await hastyDoor?.close();
    await remote?.stop();
  });

  const initializes = () => remote.requests.filter((r) => r.method === 'POST' && r.body?.method === 'initialize');
  /** The upstream session that carried the echo of `text` (its last attempt: the first may have found its session forgotten). */
  const sessionOf = (text: string) => remote.requests.findLast((r) => r.method === 'POST' && r.body?.params?.arguments?.text === text)?.headers['mcp-session-id'];

  it('a client that keeps no session rides on the gateway’s shared session: renewed when the server forgot it, and the call answered', async () => {
    const call = (text: string) =>
      rawPost(`${gw.url}/mcp/remote`, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text } } }, { 'mcp-protocol-version': '2025-06-18' });
    expect((await call('shared before')).json).toMatchObject({ id: 3, result: { content: [{ type: 'text', text: 'echo: shared before' }] } });
    remote.dropSessions();
    const after = await call('shared after');
    expect(after.status).toBe(200);
    expect(after.headers.get('mcp-session-id')).toBeNull();
    expect(after.json).toMatchObject({ id: 3, result: { content: [{ type: 'text', text: 'echo: shared after' }] } });
  });

  it('the server forgot the session (it restarted): the next call opens a new upstream session, initialised as the client initialised its own, and is answered', async () => {
    const client: Client = await connectClient(`${gw.url}/mcp/remote`);
    try {
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'before the restart' } }))).toBe('echo: before the restart');
      const before = sessionOf('before the restart');
      expect(typeof before).toBe('string');
      const opened = initializes().length;

      remote.dropSessions();
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'after the restart' } }))).toBe('echo: after the restart');

      const after = sessionOf('after the restart');
      expect(typeof after).toBe('string');
      expect(after).not.toBe(before);
      // One new session, opened with what the client's own initialize said (its name, capabilities, version) and initialised.
      const reopened = initializes().slice(opened);
      expect(reopened).toHaveLength(1);
      expect(reopened[0]!.body.params.clientInfo).toMatchObject({ name: 'gateway-test-client', version: '1.0.0' });
      expect(reopened[0]!.body.params.protocolVersion).toBe(initializes()[opened - 1]!.body.params.protocolVersion);
      expect(remote.requests.some((r) => r.body?.method === 'notifications/initialized' && r.headers['mcp-session-id'] === after)).toBe(true);

      // The session goes on there: no further session is opened for the calls after it.
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'and after that' } }))).toBe('echo: and after that');
      expect(sessionOf('and after that')).toBe(after);
      expect(initializes().length).toBe(opened + 1);
    } finally {
      await client.close();
    }
  });

  it('one new session however many requests find the old one forgotten; a client that keeps sending the old id is served on the new one', async () => {
    const headers = { 'mcp-protocol-version': '2025-06-18' };
    const opened = await rawPost(
      `${gw.url}/mcp/remote`,
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-client', version: '2.0.0' } } },
      headers,
    );
    const old = opened.headers.get('mcp-session-id')!;
    expect(old).toBeTruthy();
    expect((await rawPost(`${gw.url}/mcp/remote`, { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...headers, 'mcp-session-id': old })).status).toBe(202);
    const echo = (id: number, text: string) =>
      rawPost(`${gw.url}/mcp/remote`, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } }, { ...headers, 'mcp-session-id': old });
    expect((await echo(2, 'raw before')).json).toMatchObject({ id: 2, result: { content: [{ text: 'echo: raw before' }] } });

    remote.dropSessions();
    const before = initializes().length;
    const answers = await Promise.all([echo(3, 'raw one'), echo(4, 'raw two'), echo(5, 'raw three')]);
    answers.forEach((answer, i) => expect(answer.json).toMatchObject({ id: 3 + i, result: { content: [{ text: `echo: ${['raw one', 'raw two', 'raw three'][i]}` }] } }));
    const renewed = initializes().slice(before);
    expect(renewed).toHaveLength(1);
    expect(renewed[0]!.body.params).toEqual({ protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-client', version: '2.0.0' } });
    // The answers name the new session (a client that takes it sends it from now on)...
    const fresh = answers[0]!.headers.get('mcp-session-id');
    expect(fresh).toBeTruthy();
    expect(fresh).not.toBe(old);
    const onFresh = await rawPost(
      `${gw.url}/mcp/remote`,
      { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'echo', arguments: { text: 'raw fresh' } } },
      { ...headers, 'mcp-session-id': fresh! },
    );
    expect(onFresh.json).toMatchObject({ id: 6, result: { content: [{ text: 'echo: raw fresh' }] } });
    // ...and one that keeps the old id is served on it too, without another session.
    expect((await echo(7, 'raw old id')).json).toMatchObject({ id: 7, result: { content: [{ text: 'echo: raw old id' }] } });
    expect(sessionOf('raw old id')).toBe(sessionOf('raw fresh'));
    expect(initializes().length).toBe(before + 1);

    // Once the client ended its session (DELETE), the server forgetting it opens no other: its id is unknown.
    const ended = await fetch(`${gw.url}/mcp/remote`, { method: 'DELETE', headers: { ...headers, 'mcp-session-id': fresh! } });
    expect(ended.status).toBe(200);
    const after = await rawPost(
      `${gw.url}/mcp/remote`,
      { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'echo', arguments: { text: 'raw ended' } } },
      { ...headers, 'mcp-session-id': fresh! },
    );
    expect(after.status).toBe(404);
    expect(after.json).toMatchObject({ status: 'failure', error: { code: 'not_found', param: 'Mcp-Session-Id' } });
    expect(initializes().length).toBe(before + 1);
  });

  it('the connection was lost (the server went down, and came back without its sessions): the call waits for it (startTimeout) and is answered', async () => {
    const client: Client = await connectClient(`${gw.url}/mcp/remote`);
    try {
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'up' } }))).toBe('echo: up');
      await door.close();
      remote.dropSessions();
      const started = Date.now();
      const call = client.callTool({ name: 'echo', arguments: { text: 'back again' } });
      setTimeout(() => void door.open(), 1500);
      expect(textOf(await call)).toBe('echo: back again');
      expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'still there' } }))).toBe('echo: still there');
    } finally {
      await client.close();
    }
  });

  it('a call that cannot be served within startTimeout gets the error /mcp gives, after waiting as long; the session works once the server is back', async () => {
    const own: Client = await connectClient(`${gw.url}/mcp/hasty`);
    const aggregated: Client = await connectClient(`${gw.url}/mcp`);
    try {
      expect(textOf(await own.callTool({ name: 'echo', arguments: { text: 'hasty up' } }))).toBe('echo: hasty up');
      expect(textOf(await aggregated.callTool({ name: 'hasty__echo', arguments: { text: 'hasty up too' } }))).toBe('echo: hasty up too');
      await hastyDoor.close();

      const onAggregate = await failureOf(aggregated.callTool({ name: 'hasty__echo', arguments: { text: 'too soon' } }));
      expect(onAggregate).toBeInstanceOf(McpError);
      const started = Date.now();
      const onOwn = await failureOf(own.callTool({ name: 'echo', arguments: { text: 'too soon' } }));
      expect(Date.now() - started).toBeGreaterThanOrEqual(350);
      expect(onOwn).toBeInstanceOf(McpError);
      expect(onOwn!.code).toBe(onAggregate!.code);
      expect(onOwn!.code).toBe(-32004);
      expect(onOwn!.message).toBe(onAggregate!.message);
      expect(onOwn!.message).toMatch(/Tool server hasty is unavailable\./);

      await hastyDoor.open();
      await eventually(async () => textOf(await own.callTool({ name: 'echo', arguments: { text: 'hasty back' } })) === 'echo: hasty back', 10_000, 'the server back');
    } finally {
      await own.close();
      await aggregated.close();
    }
  });
});
