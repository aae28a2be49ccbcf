import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { HttpToolServer } from '../../helpers/http-tool-server.js';
import { connectClient, rawPost, textOf } from '../../helpers/mcp.js';
import { mcpServerProblems } from '../../../src/features/mcp/upstream/server-config.js';

const ADMIN = 'admin-token-of-the-exchange-tests-0123456789';
const CLIENT_ID = 'gateway-client';
const CLIENT_SECRET = 'client-secret-of-the-gateway-0123456789';
const AUDIENCE = 'https://tools.example/api';

interface TokenRequest {
  grant: string;
  subject?: string;
  subjectType?: string;
  audience?: string;
  scope?: string;
  resource?: string;
}

/**
 * A fake authorization server's token endpoint: client credentials (Basic) checked; the client
 * credentials grant answers `cc-<n>` (n in 8 digits: a token long enough to be a secret the
 * redactor masks); the token-exchange grant (RFC 8693) answers `x-<user>-<n>` for a subject
 * token it knows (the users' gateway keys), invalid_grant for any other.
 */
async function tokenEndpoint(subjects: Map<string, { user: string; expiresIn: number }>) {
  const seen: TokenRequest[] = [];
  let issued = 0;
  const http: HttpServer = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const basic = `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`;
      if (req.headers.authorization !== basic) return answer(401, { error: 'invalid_client' });
      const form = new URLSearchParams(text);
      const request: TokenRequest = { grant: form.get('grant_type') ?? '' };
      for (const [field, name] of [
        ['subject', 'subject_token'],
        ['subjectType', 'subject_token_type'],
        ['audience', 'audience'],
        ['scope', 'scope'],
        ['resource', 'resource'],
      ] as const)
        if (form.has(name)) request[field] = form.get(name)!;
      seen.push(request);
      issued++;
      if (request.grant === 'client_credentials') return answer(200, { access_token: `cc-${String(issued).padStart(8, '0')}`, token_type: 'Bearer', expires_in: 3600 });
      if (request.grant !== 'urn:ietf:params:oauth:grant-type:token-exchange') return answer(400, { error: 'unsupported_grant_type' });
      const subject = subjects.get(request.subject ?? '');
      if (!subject || request.audience !== AUDIENCE) return answer(400, { error: 'invalid_grant', error_description: 'unknown subject' });
      return answer(200, {
        access_token: `x-${subject.user}-${issued}`,
        issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        token_type: 'Bearer',
        expires_in: subject.expiresIn,
      });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/token`,
    seen,
    stop: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}

describe('each caller’s own credential to a tool server: auth.upstream token_exchange and client_credentials', () => {
  let exchanged: HttpToolServer;
  let shared: HttpToolServer;
  let endpoint: Awaited<ReturnType<typeof tokenEndpoint>>;
  let gw: TestGateway;
  const subjects = new Map<string, { user: string; expiresIn: number }>();
  const keys = { alice: '', bob: '', carol: '', dave: '' };

  async function issue(user: string): Promise<string> {
    const res = await fetch(`${gw.url}/v1/auth/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ user }),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { token: string }).token;
  }
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
  /** The Authorization headers the tool server got with tools/call requests. */
  const callTokens = (server: HttpToolServer) => server.calls.map((c) => c.headers.authorization);

  beforeAll(async () => {
    endpoint = await tokenEndpoint(subjects);
    exchanged = await new HttpToolServer().start();
    shared = await new HttpToolServer().start();
    const auth = { tokenEndpoint: endpoint.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET };
    gw = await startGateway({
      auth: { enabled: true, type: 'bearer', adminToken: ADMIN },
      mcpServers: {
        tools: { url: exchanged.url, auth: { upstream: 'token_exchange', ...auth, audience: AUDIENCE, scopes: ['tools.read', 'tools.write'] } },
        shared: { url: shared.url, auth: { upstream: 'client_credentials', ...auth, scopes: ['shared'] } },
      },
    });
    for (const user of ['alice', 'bob', 'carol', 'dave'] as const) keys[user] = await issue(`${user}@example.com`);
    subjects.set(keys.alice, { user: 'alice', expiresIn: 3600 });
    subjects.set(keys.bob, { user: 'bob', expiresIn: 3600 });
    subjects.set(keys.dave, { user: 'dave', expiresIn: 1 });
  });
  afterAll(async () => {
    await gw?.close();
    await exchanged?.stop();
    await shared?.stop();
    await endpoint?.stop();
  });

  it('the gateway’s own connection to the server uses its client credentials (no caller to exchange for)', () => {
    const own = endpoint.seen.filter((r) => r.grant === 'client_credentials');
    expect(own.length).toBeGreaterThanOrEqual(1);
    expect(exchanged.requests[0]!.headers.authorization).toMatch(/^Bearer cc-\d+$/);
  });

  it('a call is made with the caller’s exchanged token: subject, audience and scopes as configured; cached for the next call', async () => {
    const client = await connectClient(`${gw.url}/mcp`, bearer(keys.alice));
    try {
      expect(textOf(await client.callTool({ name: 'tools__echo', arguments: { text: 'one' } }))).toBe('echo: one');
      expect(textOf(await client.callTool({ name: 'tools__echo', arguments: { text: 'two' } }))).toBe('echo: two');
    } finally {
      await client.close();
    }
    const asked = endpoint.seen.filter((r) => r.subject === keys.alice);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toEqual({
      grant: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject: keys.alice,
      subjectType: 'urn:ietf:params:oauth:token-type:access_token',
      audience: AUDIENCE,
      scope: 'tools.read tools.write',
    });
    expect(callTokens(exchanged).slice(-2)).toEqual([expect.stringMatching(/^Bearer x-alice-\d+$/), expect.stringMatching(/^Bearer x-alice-\d+$/)]);
  });

  it('two users get two tokens on every path (/mcp session, session-less call, /mcp/<server>), and neither one’s own credential reaches the server', async () => {
    const before = exchanged.calls.length;
    const lean = await rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'tools__echo', arguments: { text: 'lean' } } }, bearer(keys.bob));
    expect(lean.json.result.content[0].text).toBe('echo: lean');
    const own = await connectClient(`${gw.url}/mcp/tools`, bearer(keys.alice));
    expect(textOf(await own.callTool({ name: 'echo', arguments: { text: 'relayed' } }))).toBe('echo: relayed');
    await own.close();
    const bobs = await connectClient(`${gw.url}/mcp/tools`, bearer(keys.bob));
    expect(textOf(await bobs.callTool({ name: 'echo', arguments: { text: 'relayed' } }))).toBe('echo: relayed');
    await bobs.close();
    expect(callTokens(exchanged).slice(before)).toEqual([
      expect.stringMatching(/^Bearer x-bob-\d+$/),
      expect.stringMatching(/^Bearer x-alice-\d+$/),
      expect.stringMatching(/^Bearer x-bob-\d+$/),
    ]);
    // Bob's token was had once, on the first path, and served the others.
    expect(endpoint.seen.filter((r) => r.subject === keys.bob)).toHaveLength(1);
    for (const request of [...exchanged.requests, ...shared.requests]) {
      const text = JSON.stringify(request);
      for (const key of Object.values(keys)) expect(text).not.toContain(key);
    }
  });

  it('a subject the token endpoint refuses: the call fails with a clear JSON-RPC error, nothing reaches the server', async () => {
    const before = exchanged.calls.length;
    const client = await connectClient(`${gw.url}/mcp`, bearer(keys.carol));
    try {
      await expect(client.callTool({ name: 'tools__echo', arguments: { text: 'x' } })).rejects.toThrow(
        /-32003.*token endpoint of tool server tools refused the token exchange \(invalid_grant\)/,
      );
    } finally {
      await client.close();
    }
    const lean = await rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'tools__echo', arguments: {} } }, bearer(keys.carol));
    expect(lean.json.error).toMatchObject({ code: -32003 });
    expect(exchanged.calls.length).toBe(before);
    expect(gw.logs.text).not.toContain(CLIENT_SECRET);
  });

  it('a token is exchanged again once it nears its expiry', async () => {
    const call = () => rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'tools__echo', arguments: { text: 'd' } } }, bearer(keys.dave));
    expect((await call()).json.result).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect((await call()).json.result).toBeDefined();
    expect(endpoint.seen.filter((r) => r.subject === keys.dave)).toHaveLength(2);
  });

  it('client_credentials: every caller’s calls carry the gateway’s own token (masked if the server echoes it)', async () => {
    for (const user of ['alice', 'bob'] as const) {
      const client = await connectClient(`${gw.url}/mcp`, bearer(keys[user]));
      expect(textOf(await client.callTool({ name: 'shared__echo', arguments: { text: user } }))).toBe(`echo: ${user}`);
      const leaked = await client.callTool({ name: 'shared__leak', arguments: {} }).catch((err: Error) => err.message);
      // The server quotes the Authorization header it got: the gateway's token is masked in it.
      expect(String(leaked)).toMatch(/Bearer \*+|\[REDACTED\]|\*\*\*/);
      expect(String(leaked)).not.toMatch(/cc-\d+/);
      await client.close();
    }
    const tokens = callTokens(shared).filter((t) => t !== undefined);
    expect(tokens.length).toBeGreaterThanOrEqual(2);
    for (const t of tokens) expect(t).toMatch(/^Bearer cc-\d+$/);
    expect(endpoint.seen.filter((r) => r.grant === 'client_credentials' && r.scope === 'shared').length).toBe(1);
  });

  it('a config with token_exchange but no token endpoint, on a process server, over plain http or beside a configured Authorization header is refused', () => {
    const problems = (server: Record<string, unknown>) => mcpServerProblems({ mcpServers: { a: server } } as never).join('; ');
    expect(problems({ url: 'https://x.example/mcp', auth: { upstream: 'token_exchange' } })).toMatch(
      /auth.tokenEndpoint: required with upstream token_exchange.*auth.clientId: required.*auth.clientSecret: required/,
    );
    const auth = { tokenEndpoint: 'https://idp.example/token', clientId: 'c', clientSecret: 's' };
    expect(problems({ command: 'node', auth: { upstream: 'client_credentials', ...auth } })).toMatch(/only applies to a remote \(url\) server/);
    expect(problems({ url: 'https://x.example/mcp', auth: { upstream: 'token_exchange', ...auth, tokenEndpoint: 'http://idp.example/token' } })).toMatch(
      /must be an https:\/\/ address/,
    );
    expect(problems({ url: 'https://x.example/mcp', headers: { Authorization: 'Bearer x' }, auth: { upstream: 'token_exchange', ...auth } })).toMatch(/remove the header/);
    expect(problems({ url: 'https://x.example/mcp', auth: { upstream: 'token_exchange', ...auth } })).toBe('');
  });
});
