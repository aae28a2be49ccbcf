import { AsyncLocalStorage } from 'node:async_hooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { HttpToolServer } from '../../helpers/http-tool-server.js';
import { connectClient, eventually, rawPost, textOf } from '../../helpers/mcp.js';
import { CALLER_CREDENTIAL } from '../../../src/features/mcp/upstream/upstream-token.js';
import { ServerPool } from '../../../src/features/mcp/upstream/server-pool.js';
import { createLogger } from '../../../src/kernel/observability/logger.js';
import type { GatewayConfig } from '../../../src/generated/gateway.js';

const ADMIN = 'admin-token-of-the-caller-scope-tests-0123456789';
const auth = { tokenEndpoint: 'http://127.0.0.1:9/token', clientId: 'gateway', clientSecret: 'client-secret-of-the-scope-tests-0123456789' };

/**
 * The caller's credential reaches a tool server's token code through an AsyncLocalStorage
 * scope (CALLER_CREDENTIAL). On Node 20 entering one turns on promise hooks for the whole
 * process, for good: every promise of every route pays from then on. So the endpoint enters it
 * only when a configured tool server reads the caller (token_exchange, per_user_oauth).
 */
describe('the caller scope of /mcp is entered only when a tool server reads the caller', () => {
  it('servers say whether they read the caller: token_exchange and per_user_oauth do, static headers and client_credentials do not', async () => {
    const logger = createLogger('silent');
    const poolOf = (mcpServers: Record<string, unknown>) => new ServerPool({ mcpServers } as unknown as GatewayConfig, logger);
    const cases: Array<[Record<string, unknown>, boolean]> = [
      [{ s: { url: 'http://127.0.0.1:9/mcp' } }, false],
      [{ s: { url: 'http://127.0.0.1:9/mcp', headers: { authorization: 'Bearer static-0123456789abcdef' } } }, false],
      [{ s: { url: 'http://127.0.0.1:9/mcp', auth: { upstream: 'client_credentials', ...auth } } }, false],
      [{ s: { url: 'http://127.0.0.1:9/mcp', auth: { upstream: 'token_exchange', ...auth, audience: 'https://tools.example' } } }, true],
      [{ s: { url: 'http://127.0.0.1:9/mcp', auth: { upstream: 'per_user_oauth', ...auth, authorizationEndpoint: 'http://127.0.0.1:9/authorize' } } }, true],
      [{ s: { command: process.execPath, args: ['-e', ''] } }, false],
      [
        {
          a: { url: 'http://127.0.0.1:9/mcp' },
          b: { url: 'http://127.0.0.1:9/mcp', auth: { upstream: 'token_exchange', ...auth, audience: 'https://tools.example' } },
        },
        true,
      ],
      [{ a: { url: 'http://127.0.0.1:9/mcp', enabled: false, auth: { upstream: 'token_exchange', ...auth, audience: 'https://tools.example' } } }, false],
    ];
    for (const [servers, reads] of cases) {
      const pool = poolOf(servers);
      try {
        expect({ servers: Object.keys(servers), reads: pool.readsCaller }).toEqual({ servers: Object.keys(servers), reads });
      } finally {
        await pool.close();
      }
    }
  });

  describe('a gateway whose tool server sends its own static headers', () => {
    let tools: HttpToolServer;
    let gw: TestGateway;
    let key = '';

    beforeAll(async () => {
      tools = await new HttpToolServer().start();
      gw = await startGateway({
        auth: { enabled: true, type: 'bearer', adminToken: ADMIN },
        mcpServers: { tools: { url: tools.url, headers: { 'x-api-key': 'static-key-of-the-scope-tests-0123456789' } } },
      });
      const res = await fetch(`${gw.url}/v1/auth/tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ user: 'alice@example.com' }),
      });
      expect(res.status).toBe(201);
      key = ((await res.json()) as { token: string }).token;
    });
    afterAll(async () => {
      await gw?.close();
      await tools?.stop();
    });
    afterEach(() => vi.restoreAllMocks());

    it('serves a session, a session-less call and /mcp/<server> without entering the caller scope', async () => {
      const run = vi.spyOn(CALLER_CREDENTIAL, 'run');
      const headers = { authorization: `Bearer ${key}` };
      const client = await connectClient(`${gw.url}/mcp`, headers);
      try {
        expect(textOf(await client.callTool({ name: 'tools__echo', arguments: { text: 'session' } }))).toBe('echo: session');
      } finally {
        await client.close();
      }
      const lean = await rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'tools__echo', arguments: { text: 'lean' } } }, headers);
      expect(lean.json.result.content[0].text).toBe('echo: lean');
      const own = await connectClient(`${gw.url}/mcp/tools`, headers);
      try {
        expect(textOf(await own.callTool({ name: 'echo', arguments: { text: 'relayed' } }))).toBe('echo: relayed');
      } finally {
        await own.close();
      }
      expect(run).not.toHaveBeenCalled();
      // The server got its configured header on every call, and never the caller's key.
      expect(tools.calls.length).toBeGreaterThanOrEqual(3);
      for (const call of tools.calls) {
        expect(call.headers['x-api-key']).toBe('static-key-of-the-scope-tests-0123456789');
        expect(JSON.stringify(call.headers)).not.toContain(key);
      }
    });
  });

  describe('callers with identity forwarding on, at once on one shared tool-server session', () => {
    let tools: HttpToolServer;
    let gw: TestGateway;
    const keys: Record<string, string> = {};
    const USERS = ['alice@example.com', 'bob@example.com', 'carol@example.com'];

    beforeAll(async () => {
      tools = await new HttpToolServer().start();
      gw = await startGateway({
        auth: { enabled: true, type: 'bearer', adminToken: ADMIN },
        identityForwarding: { signingSecret: 'identity-signing-secret-of-the-scope-tests-0123' },
        mcpServers: { tools: { url: tools.url, headers: { 'x-api-key': 'static-key-of-the-scope-tests-0123456789' } } },
      });
      for (const user of USERS) {
        const res = await fetch(`${gw.url}/v1/auth/tokens`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ user }),
        });
        expect(res.status).toBe(201);
        keys[user] = ((await res.json()) as { token: string }).token;
      }
    });
    afterAll(async () => {
      await gw?.close();
      await tools?.stop();
    });
    afterEach(() => vi.restoreAllMocks());

    /** An SDK client on /mcp; `asking` declares roots, so the gateway opens the session's own connection to the tool server. */
    async function session(user: string, asking: boolean): Promise<Client> {
      const client = new Client({ name: 'scope-test', version: '1.0.0' }, { capabilities: asking ? { roots: {} } : {} });
      if (asking) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [] }));
      await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${keys[user]}` } } }));
      return client;
    }
    const who = (text: string) => (JSON.parse(text) as { email: string | null }).email;

    it("sends each caller's own identity on their call, through shared and own sessions, without any AsyncLocalStorage", async () => {
      const run = vi.spyOn(AsyncLocalStorage.prototype, 'run');
      const shared = await Promise.all(USERS.map((user) => session(user, false)));
      const own = await Promise.all(USERS.map((user) => session(user, true)));
      try {
        const calls: Array<Promise<[string, string | null]>> = [];
        for (let round = 0; round < 4; round++) {
          USERS.forEach((user, i) => {
            calls.push(shared[i]!.callTool({ name: 'tools__whoami', arguments: {} }).then((r) => [user, who(textOf(r))]));
            calls.push(own[i]!.callTool({ name: 'tools__whoami', arguments: {} }).then((r) => [user, who(textOf(r))]));
            calls.push(
              rawPost(
                `${gw.url}/mcp`,
                { jsonrpc: '2.0', id: round, method: 'tools/call', params: { name: 'tools__whoami', arguments: {} } },
                { authorization: `Bearer ${keys[user]}` },
              ).then((r) => [user, who(r.json.result.content[0].text as string)]),
            );
          });
        }
        const answers = await Promise.all(calls);
        expect(answers).toHaveLength(USERS.length * 3 * 4);
        for (const [user, email] of answers) expect(email).toBe(user);
      } finally {
        await Promise.all([...shared, ...own].map((c) => c.close()));
      }
      expect(run).not.toHaveBeenCalled();
      // Every call was signed for its caller; the server's configured header went along, and no caller's key.
      const whoamis = tools.calls.filter((c) => c.tool === 'whoami');
      expect(whoamis).toHaveLength(USERS.length * 3 * 4);
      for (const call of whoamis) {
        expect(USERS).toContain(call.headers['x-user-email']);
        expect(String(call.headers['x-gateway-identity-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
        expect(call.headers['x-api-key']).toBe('static-key-of-the-scope-tests-0123456789');
        for (const key of Object.values(keys)) expect(JSON.stringify(call.headers)).not.toContain(key);
      }
    });

    it("a session's own connection carries its caller's identity on its handshake and its end", async () => {
      const before = tools.requests.length;
      const client = await session('carol@example.com', true);
      expect(who(textOf(await client.callTool({ name: 'tools__whoami', arguments: {} })))).toBe('carol@example.com');
      // The client ends its session (DELETE): the gateway ends the session's own connection with the tool server.
      await (client.transport as StreamableHTTPClientTransport).terminateSession();
      await client.close();
      await eventually(() => tools.requests.slice(before).some((r) => r.method === 'DELETE'), 5000, 'the own connection ended');
      const sent = tools.requests.slice(before);
      const initialize = sent.find((r) => r.method === 'POST' && r.body?.method === 'initialize');
      expect(initialize?.headers['x-user-email']).toBe('carol@example.com');
      for (const r of sent.filter((r) => r.method === 'DELETE')) expect(r.headers['x-user-email']).toBe('carol@example.com');
    });
  });
});
