import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { rawPost } from '../../helpers/mcp.js';
import { dropSharedState, sharedStoreConfig } from '../../helpers/shared-stores.js';
import { FormBrowser, hiddenFields, MetadataDocumentHost, pkcePair } from '../../helpers/oauth-browser.js';

const KEY = 'shared-store-key-0123456789abcdef';
const REDIRECT = 'http://127.0.0.1:9/callback';
const PUBLIC = 'http://gateway.test';
const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

async function token(base: string, form: Record<string, string>): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
  return { status: res.status, json: await res.json() };
}

describe('two instances on one PostgreSQL store with one configured Ed25519 signing key', () => {
  const schema = `gw_oauth_${randomBytes(6).toString('hex')}`;
  const pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  let docs: MetadataDocumentHost;
  let a: TestGateway;
  let b: TestGateway;

  beforeAll(async () => {
    docs = await new MetadataDocumentHost().start();
    docs.document = () => ({ client_name: 'Shared', redirect_uris: [REDIRECT] });
    const config = {
      ...sharedStoreConfig('postgres', '', schema),
      server: { publicUrl: PUBLIC },
      auth: { enabled: true, type: 'oauth', apiKeys: [{ key: KEY, user: 'pat' }], oauth: { role: 'authorization-server', allowInsecureClientMetadata: true, signingKey: pem } },
    };
    a = await startGateway(config);
    b = await startGateway(config);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await docs?.stop();
    await dropSharedState('postgres', '', schema);
  });

  it('serves one flow across instances: authorize on one, login on the other, tokens valid on both, reuse seen by both', async () => {
    const jwks = (await (await fetch(`${a.url}/oauth/jwks`)).json()) as any;
    expect(jwks.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' });
    expect(await (await fetch(`${b.url}/oauth/jwks`)).json()).toEqual(jwks);

    const clientId = `${docs.url}/client.json`;
    const { verifier, challenge } = pkcePair();
    const url = new URL(`${a.url}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 's',
    })) {
      url.searchParams.set(k, v);
    }
    const browser = new FormBrowser();
    const login = await browser.get(url.href);
    expect(login.status, login.text).toBe(200);
    const consent = await browser.post(`${b.url}/oauth/login`, { ...hiddenFields(login.text), key: KEY });
    expect(consent.status, consent.text).toBe(200);
    expect(consent.text).toContain(`${PUBLIC}/mcp`);
    const back = await browser.post(`${a.url}/oauth/consent`, { ...hiddenFields(consent.text), decision: 'approve' });
    const redirect = new URL(back.location!);
    expect(redirect.searchParams.get('iss')).toBe(PUBLIC);
    const issued = await token(b.url, {
      grant_type: 'authorization_code',
      code: redirect.searchParams.get('code')!,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: REDIRECT,
    });
    expect(issued.status, JSON.stringify(issued.json)).toBe(200);
    for (const gw of [a, b]) expect((await rawPost(`${gw.url}/mcp`, list, { authorization: `Bearer ${issued.json.access_token}` })).status).toBe(200);

    const rotated = await token(a.url, { grant_type: 'refresh_token', refresh_token: issued.json.refresh_token, client_id: clientId });
    expect(rotated.status).toBe(200);
    expect((await token(b.url, { grant_type: 'refresh_token', refresh_token: issued.json.refresh_token, client_id: clientId })).json.error).toBe('invalid_grant');
    for (const gw of [a, b]) expect((await rawPost(`${gw.url}/mcp`, list, { authorization: `Bearer ${rotated.json.access_token}` })).status).toBe(401);
  });
});
