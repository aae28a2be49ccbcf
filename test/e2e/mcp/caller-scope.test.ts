import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { HttpToolServer } from '../../helpers/http-tool-server.js';
import { connectClient, rawPost, textOf } from '../../helpers/mcp.js';
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
});
