/**
 * A provider setting is a one-file change: a plugin provider declares its fields (a region its
 * host is built from, a secret sent as a header) and the generic code reads the declarations:
 * the x-gateway-<field> headers reach the provider, the region is checked against its pattern
 * (a 400 naming the header, nothing sent), the secret never shows in an answer, and the
 * built-in providers' fields work as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { providerField } from '../../../src/features/models/providers/shared/provider-fields.js';

const PLUGIN = join(import.meta.dirname, '..', '..', 'fixtures', 'plugins', 'acme-provider.ts');
const SECRET = 'acme-tenant-secret-0123456789';

let fake: FakeUpstream;
let gw: TestGateway;

beforeAll(async () => {
  fake = await new FakeUpstream()
    .on('POST /acme/v1/chat/completions', (req, res) => {
      // An upstream that echoes what it got in its error (as some do): the secret must not reach the caller.
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `bad tenant ${String(req.headers['x-acme-tenant'])}`, type: 'invalid_request_error' } }));
    })
    .start();
  gw = await startGateway({ plugins: [PLUGIN], providers: { acme: { baseUrl: `${fake.url}/acme/v1` } } });
});

afterAll(async () => {
  await gw?.close();
  await fake?.stop();
});

const chat = (headers: Record<string, string>) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gateway-provider': 'acme', 'x-gateway-api-key': 'sk-acme-000111222', ...headers },
    body: JSON.stringify({ model: 'acme-1', messages: [{ role: 'user', content: 'hi' }] }),
  });

describe('provider settings declared by the provider', () => {
  it('the plugin’s declared fields are known to the generic code (secret, header, pattern, host)', () => {
    expect(providerField('acme_tenant_secret')).toMatchObject({ secret: true, header: true, providers: ['acme'] });
    expect(providerField('acme_region')).toMatchObject({ host: true, providers: ['acme'] });
    expect(providerField('aws_secret_access_key')).toMatchObject({ secret: true, header: true, providers: ['bedrock'] });
  });

  it('x-gateway-<field> headers reach the provider; a secret the upstream echoes is masked in the answer', async () => {
    const res = await chat({ 'x-gateway-acme-tenant-secret': SECRET, 'x-gateway-acme-region': 'us2' });
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(fake.received('POST /acme/v1/chat/completions').at(-1)!.headers['x-acme-tenant']).toBe(SECRET);
    expect(text).not.toContain(SECRET);
    expect(text).toContain('bad tenant');
  });

  it('a value that breaks the declared pattern is a 400 naming its header; nothing is sent', async () => {
    const before = fake.requests.length;
    const res = await chat({ 'x-gateway-acme-region': 'evil.example/x' });
    const body = (await res.json()) as any;
    expect(res.status).toBe(400);
    expect(body.error.param).toBe('x-gateway-acme-region');
    expect(body.error.message).toContain('an Acme region such as eu1');
    expect(fake.requests.length).toBe(before);
  });
});
