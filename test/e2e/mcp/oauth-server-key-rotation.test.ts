import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtectedHeader } from 'jose';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { rawPost } from '../../helpers/mcp.js';
import { FormBrowser, hiddenFields, MetadataDocumentHost, pkcePair } from '../../helpers/oauth-browser.js';

const KEY = 'rotation-user-key-0123456789abcdef';
const REDIRECT = 'http://127.0.0.1:9/callback';
const PUBLIC = 'http://gateway.test';
const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
const pemOf = (kind: 'ec' | 'ed25519') =>
  (kind === 'ec' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519')).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

async function token(base: string, form: Record<string, string>): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
  return { status: res.status, json: await res.json() };
}

describe('rotating the signing key of the gateway’s authorization server (auth.oauth.previousSigningKeys)', () => {
  const oldKey = pemOf('ec');
  const newKey = pemOf('ed25519');
  let dataDir: string;
  let docs: MetadataDocumentHost;
  let gw: TestGateway | undefined;

  const start = (oauth: Record<string, unknown>) =>
    startGateway(
      {
        server: { publicUrl: PUBLIC },
        auth: { enabled: true, type: 'oauth', apiKeys: [{ key: KEY, user: 'pat' }], oauth: { role: 'authorization-server', allowInsecureClientMetadata: true, ...oauth } },
      },
      { dataDir },
    );
  const accepted = async (access: string) => (await rawPost(`${gw!.url}/mcp`, list, { authorization: `Bearer ${access}` })).status;
  const jwks = async () => ((await (await fetch(`${gw!.url}/oauth/jwks`)).json()) as { keys: Array<{ kid: string; alg: string }> }).keys;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'gw-rotation-'));
    docs = await new MetadataDocumentHost().start();
    docs.document = () => ({ client_name: 'Rotation', redirect_uris: [REDIRECT] });
  });
  afterAll(async () => {
    await gw?.close();
    await docs?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the new key signs, the old one still verifies its tokens and is in the JWKS; once removed, its tokens are refused', async () => {
    // Before: the old key alone.
    gw = await start({ signingKey: oldKey });
    const [oldJwk] = await jwks();
    expect(oldJwk).toMatchObject({ alg: 'ES256' });
    const clientId = `${docs.url}/client.json`;
    const { verifier, challenge } = pkcePair();
    const url = new URL(`${gw.url}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 's',
    }))
      url.searchParams.set(k, v);
    const browser = new FormBrowser();
    const login = await browser.get(url.href);
    expect(login.status, login.text).toBe(200);
    const consent = await browser.post(`${gw.url}/oauth/login`, { ...hiddenFields(login.text), key: KEY });
    const back = await browser.post(`${gw.url}/oauth/consent`, { ...hiddenFields(consent.text), decision: 'approve' });
    const code = new URL(back.location!).searchParams.get('code')!;
    const first = await token(gw.url, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: REDIRECT });
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    const oldToken = first.json.access_token as string;
    expect(decodeProtectedHeader(oldToken).kid).toBe(oldJwk!.kid);
    expect(await accepted(oldToken)).toBe(200);
    await gw.close();

    // The rotation: the new key signs, the old one verifies.
    gw = await start({ signingKey: newKey, previousSigningKeys: [oldKey] });
    const both = await jwks();
    expect(both.map((k) => k.alg)).toEqual(['EdDSA', 'ES256']);
    expect(both[1]!.kid).toBe(oldJwk!.kid);
    expect(await accepted(oldToken)).toBe(200);
    const refreshed = await token(gw.url, { grant_type: 'refresh_token', refresh_token: first.json.refresh_token, client_id: clientId });
    expect(refreshed.status, JSON.stringify(refreshed.json)).toBe(200);
    const newToken = refreshed.json.access_token as string;
    expect(decodeProtectedHeader(newToken)).toMatchObject({ alg: 'EdDSA', kid: both[0]!.kid });
    expect(await accepted(newToken)).toBe(200);
    // A token whose header names a held key with another algorithm is refused.
    const [, body, sig] = newToken.split('.');
    const forgedHeader = Buffer.from(JSON.stringify({ ...decodeProtectedHeader(newToken), kid: oldJwk!.kid })).toString('base64url');
    expect(await accepted(`${forgedHeader}.${body}.${sig}`)).toBe(401);
    await gw.close();

    // After: the old key removed, its tokens are refused; the new key's still verify.
    gw = await start({ signingKey: newKey });
    expect((await jwks()).map((k) => k.kid)).toEqual([both[0]!.kid]);
    expect(await accepted(oldToken)).toBe(401);
    expect(await accepted(newToken)).toBe(200);
  });

  it('a previous key that is not a PEM private key is a config error naming it', async () => {
    await expect(start({ signingKey: newKey, previousSigningKeys: ['not a pem'] })).rejects.toThrow(/previousSigningKeys\[0\]/);
  });
});
