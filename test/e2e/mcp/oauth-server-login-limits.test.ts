import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { FormBrowser, hiddenFields, MetadataDocumentHost, pkcePair } from '../../helpers/oauth-browser.js';

const ALICE_KEY = 'alice-key-of-the-login-limit-tests-0123';
const REDIRECT = 'http://127.0.0.1:9/callback';

describe('the authorization server’s login page limits failed logins per client address (auth.oauth.loginAttempts)', () => {
  let docs: MetadataDocumentHost;
  let gw: TestGateway;

  beforeAll(async () => {
    docs = await new MetadataDocumentHost().start();
    docs.document = () => ({ client_name: 'Limits client', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    gw = await startGateway({
      auth: {
        enabled: true,
        type: 'oauth',
        apiKeys: [{ key: ALICE_KEY, user: 'alice' }],
        oauth: { role: 'authorization-server', allowInsecureClientMetadata: true, loginAttempts: { max: 3, window: '15m' } },
      },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await docs?.stop();
  });

  it('three wrong keys are answered by the login page; then every login from that address is 429 in the contract’s shape, the right key included', async () => {
    const url = new URL(`${gw.url}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: `${docs.url}/client.json`,
      redirect_uri: REDIRECT,
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      state: 's',
    }))
      url.searchParams.set(k, v);
    const browser = new FormBrowser();
    const login = await browser.get(url.href);
    expect(login.status, login.text).toBe(200);
    const fields = hiddenFields(login.text);
    for (let i = 0; i < 3; i++) {
      const wrong = await browser.post(`${gw.url}/oauth/login`, { ...fields, key: `wrong-key-${i}-0123456789` });
      expect(wrong.status).toBe(401);
    }
    const refused = await browser.post(`${gw.url}/oauth/login`, { ...fields, key: ALICE_KEY });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const body = JSON.parse(refused.text) as { error: { code: string; type: string; message: string } };
    expect(body.error).toMatchObject({ code: 'rate_limit_exceeded', type: 'rate_limit_error' });
    expect(body.error.message).toMatch(/Too many failed logins/);
    expect(refused.text).not.toContain(ALICE_KEY);
  });
});
