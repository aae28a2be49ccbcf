import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { HttpToolServer } from '../../helpers/http-tool-server.js';
import { FakeOidcIssuer } from '../../helpers/oidc-issuer.js';
import { textOf } from '../../helpers/mcp.js';
import { FormBrowser, hiddenFields } from '../../helpers/oauth-browser.js';

const KEY = 'sdk-user-key-0123456789abcdef';
const REDIRECT = 'http://127.0.0.1:9/sdk-callback';

/** An OAuthClientProvider kept in memory; the authorization URL it is sent to is kept for the test's browser. */
class MemoryProvider implements OAuthClientProvider {
  authorizationUrl?: URL;
  private info?: OAuthClientInformationMixed;
  private saved?: OAuthTokens;
  private verifier = '';
  readonly redirectUrl = REDIRECT;
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: 'SDK test client',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** Connects with only the gateway's URL; on 401 the SDK discovers, registers and sends the browser; the test plays it. */
async function connectThroughBrowser(url: string, provider: MemoryProvider, browse: (authorizationUrl: URL) => Promise<string>): Promise<Client> {
  const first = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: provider });
  const client = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
  await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrl).toBeDefined();
  const code = await browse(provider.authorizationUrl!);
  await first.finishAuth(code);
  const connected = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
  await connected.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: provider }));
  return connected;
}

describe('the MCP SDK client, knowing only the gateway URL, completes the authorization-server flow', () => {
  let remote: HttpToolServer;
  let gw: TestGateway;

  beforeAll(async () => {
    remote = await new HttpToolServer().start();
    gw = await startGateway({
      auth: { enabled: true, type: 'oauth', apiKeys: [{ key: KEY, user: 'sam', email: 'sam@example.com' }], oauth: { role: 'authorization-server' } },
      mcpServers: { remote: { url: remote.url } },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
  });

  it('discovers, registers dynamically, logs in with a gateway key, consents, and calls tools', async () => {
    const provider = new MemoryProvider();
    const client = await connectThroughBrowser(gw.url, provider, async (authorizationUrl) => {
      expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${gw.url}/oauth/authorize`);
      expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authorizationUrl.searchParams.get('resource')).toBe(`${gw.url}/mcp`);
      const browser = new FormBrowser();
      const login = await browser.get(authorizationUrl.href);
      expect(login.status, login.text).toBe(200);
      const consent = await browser.post(`${gw.url}/oauth/login`, { ...hiddenFields(login.text), key: KEY });
      expect(consent.text).toContain('SDK test client');
      const back = await browser.post(`${gw.url}/oauth/consent`, { ...hiddenFields(consent.text), decision: 'approve' });
      const redirect = new URL(back.location!);
      expect(redirect.origin + redirect.pathname).toBe(REDIRECT);
      return redirect.searchParams.get('code')!;
    });
    expect(provider.clientInformation()?.client_id).toMatch(/^gwc_/);
    expect(provider.tokens()?.refresh_token).toMatch(/^gwr_/);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('remote__whoami');
    const seen = JSON.parse(textOf(await client.callTool({ name: 'remote__whoami', arguments: {} })));
    expect(seen).toMatchObject({ email: 'sam@example.com' });
    await client.close();
  });
});

describe('login delegated to the upstream OpenID provider', () => {
  let issuer: FakeOidcIssuer;
  let remote: HttpToolServer;
  let gw: TestGateway;

  beforeAll(async () => {
    issuer = await new FakeOidcIssuer().start();
    remote = await new HttpToolServer().start();
    gw = await startGateway({
      auth: {
        enabled: true,
        type: 'oauth',
        provider: 'FakeIdP',
        issuer: issuer.url,
        clientId: issuer.client.id,
        clientSecret: issuer.client.secret,
        oauth: { role: 'authorization-server', login: ['oidc'] },
      },
      mcpServers: { remote: { url: remote.url } },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
    await issuer?.stop();
  });

  it('the SDK client connects through the provider: redirect, code exchange, id_token verified, consent', async () => {
    const provider = new MemoryProvider();
    const client = await connectThroughBrowser(gw.url, provider, async (authorizationUrl) => {
      const browser = new FormBrowser();
      const login = await browser.get(authorizationUrl.href);
      expect(login.text).toContain('Sign in with FakeIdP');
      expect(login.text).not.toContain('name="key"');
      const toIdp = await browser.post(`${gw.url}/oauth/login`, hiddenFields(login.text));
      expect(toIdp.status).toBe(302);
      const idpUrl = new URL(toIdp.location!);
      expect(idpUrl.origin).toBe(issuer.url);
      expect(idpUrl.searchParams.get('redirect_uri')).toBe(`${gw.url}/oauth/callback`);
      const fromIdp = await browser.get(toIdp.location!);
      expect(fromIdp.status).toBe(302);
      const consent = await browser.get(fromIdp.location!);
      expect(consent.status, consent.text).toBe(200);
      expect(consent.text).toContain('olga@example.com');
      const back = await browser.post(`${gw.url}/oauth/consent`, { ...hiddenFields(consent.text), decision: 'approve' });
      return new URL(back.location!).searchParams.get('code')!;
    });
    expect(issuer.logins).toBe(1);
    const seen = JSON.parse(textOf(await client.callTool({ name: 'remote__whoami', arguments: {} })));
    expect(seen).toMatchObject({ email: 'olga@example.com', name: 'Olga' });
    await client.close();
  });

  it('a callback from another browser (no cookie) or with a made-up state is refused', async () => {
    const browser = new FormBrowser();
    const url = new URL(`${gw.url}/oauth/authorize`);
    const docsless = await fetch(`${gw.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT] }),
    });
    const { client_id } = (await docsless.json()) as { client_id: string };
    for (const [k, v] of Object.entries({ response_type: 'code', client_id, redirect_uri: REDIRECT, code_challenge: 'A'.repeat(43), code_challenge_method: 'S256' }))
      url.searchParams.set(k, v);
    const login = await browser.get(url.href);
    const toIdp = await browser.post(`${gw.url}/oauth/login`, hiddenFields(login.text));
    const fromIdp = await browser.get(toIdp.location!);
    const stranger = new FormBrowser();
    expect((await stranger.get(fromIdp.location!)).status).toBe(403);
    const madeUp = new URL(fromIdp.location!);
    madeUp.searchParams.set('state', 'gwp_madeupmadeupmadeupmadeup');
    expect((await browser.get(madeUp.href)).status).toBe(400);
  });
});
