import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { FakeUpstream } from '../../helpers/fake-upstream.js';

const KEY = 'provider-route-key-0001';
const SECRET = 'identity-signing-secret-0123';

describe('the forward-identity stage on a provider route', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;
  const dir = mkdtempSync(join(tmpdir(), 'gw-pipelines-'));

  beforeAll(async () => {
    writeFileSync(join(dir, 'models.yaml'), 'name: models\nextends: models\ninsert:\n  - after: authenticate\n    stages: [forward-identity]\n');
    upstream = await new FakeUpstream().on('GET /v1/models', { json: { object: 'list', data: [] } }).start();
    gw = await startGateway({
      pipelines: { dir },
      auth: { apiKeys: [{ key: KEY, user: 'ivy@example.com', team: 'ml', roles: ['trainer'] }] },
      identityForwarding: { signingSecret: SECRET, organizationId: 'org-7' },
      providers: { openai: { baseUrl: `${upstream.url}/v1` } },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends the identity of the x-gateway-token credential upstream, signed, and drops what the caller forged', async () => {
    const res = await fetch(`${gw.url}/v1/models`, {
      headers: {
        'x-gateway-provider': 'openai',
        'x-gateway-api-key': 'sk-test-1234567890',
        'x-gateway-token': KEY,
        'x-user-email': 'forged@example.com',
        'x-organization-id': 'forged-org',
      },
    });
    expect(res.status).toBe(200);
    const sent = upstream.received('GET /v1/models').at(-1)!.headers;
    expect(sent['x-user-email']).toBe('ivy@example.com');
    expect(sent['x-user-name']).toBe('ivy@example.com');
    expect(sent['x-user-team']).toBe('ml');
    expect(sent['x-user-roles']).toBe('trainer');
    expect(sent['x-organization-id']).toBe('org-7');
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]+)$/.exec(String(sent['x-gateway-identity-signature']))!;
    expect(v1).toBe(createHmac('sha256', SECRET).update(`${t}.ivy@example.com.ivy@example.com.ml.trainer.org-7`).digest('hex'));
    expect(JSON.stringify(sent)).not.toContain(KEY);
  });

  it('sends no identity headers without a gateway credential', async () => {
    const res = await fetch(`${gw.url}/v1/models`, {
      headers: { 'x-gateway-provider': 'openai', 'x-gateway-api-key': 'sk-test-1234567890', 'x-user-email': 'forged@example.com' },
    });
    expect(res.status).toBe(200);
    const sent = upstream.received('GET /v1/models').at(-1)!.headers;
    expect(sent['x-user-email']).toBeUndefined();
    expect(sent['x-gateway-identity-signature']).toBeUndefined();
  });
});
