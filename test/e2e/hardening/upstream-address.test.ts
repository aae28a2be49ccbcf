import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:net';
import { request } from 'undici';
import { request as httpRequest } from 'node:http';

/** A GET whose path is sent exactly as written. */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  const u = new URL(url.replace(/\/\.+(?=\/)|%2e/gi, (m) => m)); // host and port only
  const path = url.slice(url.indexOf('/', url.indexOf('//') + 2));
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path, method: 'GET', headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.end();
  });
}
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { CHAT, chatBody, post } from '../../helpers/routing-harness.js';

const AWS = { 'x-gateway-aws-access-key-id': 'AKIAHARDENINGTEST01', 'x-gateway-aws-secret-access-key': 'hardening-aws-secret-access-key-01' };

/**
 * Values a caller sends that become part of an upstream URL are checked against strict
 * patterns before anything is sent: a TCP listener standing in for an attacker's host must see
 * no connection, whatever the value tries (user info, a port, a fragment, a path, a query).
 */
describe('no caller chooses where the gateway connects', () => {
  let listener: Server;
  let port: number;
  let connections = 0;
  let gw: TestGateway;
  /** A gateway whose openai points at the listener (for path parameters). */
  let gwPaths: TestGateway;

  beforeAll(async () => {
    listener = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
    port = (listener.address() as { port: number }).port;
    gw = await startGateway({ logging: { level: 'warn' } });
    gwPaths = await startGateway({ logging: { level: 'warn' }, providers: { openai: { baseUrl: `http://127.0.0.1:${port}/v1` } } });
  });
  afterAll(async () => {
    await gw?.close();
    await gwPaths?.close();
    await new Promise((r) => listener.close(r));
  });

  /** `HOST` stands for the listener's address (known once it listens). */
  const at = (value: string) => value.replace('HOST', `127.0.0.1:${port}`);
  const attacks = () => {
    const at = 'HOST';
    return [
      ['bedrock', 'x-gateway-aws-region', `x@${at}/`],
      ['bedrock', 'x-gateway-aws-region', 'evil.example#'],
      ['bedrock', 'x-gateway-aws-region', `us-east-1.${at}/x?`],
      ['azure-openai', 'x-gateway-azure-resource-name', `${at}#`],
      ['azure-openai', 'x-gateway-azure-resource-name', `x@${at}/`],
      ['azure-openai', 'x-gateway-azure-deployment-id', '../../../x'],
      ['azure-openai', 'x-gateway-azure-api-version', '2024-10-21&api-key=stolen#'],
      ['vertex-ai', 'x-gateway-vertex-region', `x@${at}/`],
      ['vertex-ai', 'x-gateway-vertex-region', 'x.evil.com#'],
      ['vertex-ai', 'x-gateway-vertex-project-id', `a/../../${at}`],
    ] as const;
  };

  const headersFor = (provider: string): Record<string, string> => {
    const base: Record<string, string> = { 'x-gateway-provider': provider, authorization: 'Bearer sk-hardening-caller-key-01' };
    if (provider === 'bedrock') Object.assign(base, AWS);
    if (provider === 'azure-openai') Object.assign(base, { 'x-gateway-azure-resource-name': 'acme', 'x-gateway-azure-deployment-id': 'gpt4o' });
    if (provider === 'vertex-ai') Object.assign(base, { 'x-gateway-vertex-project-id': 'acme-project', 'x-gateway-vertex-region': 'us-central1' });
    return base;
  };

  it.each(attacks().map(([p, h, v]) => [p, h, v]))('%s: %s = %j is a 400 naming the header, nothing sent', async (provider, header, value) => {
    const res = await post(gw.url, CHAT, chatBody(), { ...headersFor(provider), [header]: at(value) });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ status: 'failure', error: { type: 'invalid_request_error', code: 'missing_required_parameter', param: header } });
    expect(connections).toBe(0);
  });

  it.each(attacks().map(([p, h, v]) => [p, h, v]))('%s: the routing-target field of %s = %j is a 400 naming x-gateway-config', async (provider, header, value) => {
    const field = header.replace(/^x-gateway-/, '').replace(/-/g, '_');
    const target: Record<string, string> = { provider };
    const headers = headersFor(provider);
    for (const [name, v] of Object.entries(headers)) {
      if (name.startsWith('x-gateway-') && name !== 'x-gateway-provider') target[name.replace(/^x-gateway-/, '').replace(/-/g, '_')] = v;
    }
    target[field] = at(value);
    const res = await post(gw.url, CHAT, chatBody(), { authorization: headers.authorization!, 'x-gateway-config': JSON.stringify({ targets: [target] }) });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ param: 'x-gateway-config' });
    expect(res.json.error.message).toContain(field);
    expect(connections).toBe(0);
  });

  it.each(['..', '.', '%2e%2e', '%2E.'])('a path id of %j cannot climb out of its path (400 naming it, nothing sent)', async (id) => {
    // Sent as written (a client that does not normalize its path, as curl --path-as-is).
    const res = await rawGet(`${gwPaths.url}/v1/files/${id}/content`, { 'x-gateway-provider': 'openai', authorization: 'Bearer sk-hardening-caller-key-01' });
    const body = JSON.parse(res.text);
    expect(res.status).toBe(400);
    expect(body.error).toMatchObject({ code: 'missing_required_parameter', param: 'file_id' });
    expect(connections).toBe(0);
  });

  it('a fireworks account id that is not one is refused before the control plane is called', async () => {
    const res = await request(`${gw.url}/v1/fine_tuning/jobs`, {
      headers: { 'x-gateway-provider': 'fireworks-ai', authorization: 'Bearer fw-hardening-key-01', 'x-gateway-fireworks-account-id': `x@127.0.0.1:${port}` },
    });
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(await res.body.text()).error.param).toBe('x-gateway-fireworks-account-id');
    expect(connections).toBe(0);
  });

  it('a key or AWS credential with CR, LF or NUL is a 400, not a retryable 502', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ 'x-gateway-config': JSON.stringify({ targets: [{ provider: 'openai', api_key: 'sk-a\r\nx-injected: 1' }] }) }, 'x-gateway-config'],
      [{ 'x-gateway-config': JSON.stringify({ targets: [{ provider: 'openai', api_key: 'sk-a\u0000b' }] }) }, 'x-gateway-config'],
      [
        { 'x-gateway-config': JSON.stringify({ targets: [{ provider: 'bedrock', aws_region: 'us-east-1', aws_access_key_id: 'AKIA\nX', aws_secret_access_key: 's' }] }) },
        'x-gateway-config',
      ],
      // A header is ASCII: the JSON escapes the character, the key holds it.
      [{ 'x-gateway-config': JSON.stringify({ targets: [{ provider: 'openai', api_key: 'sk-\u2603-snowman' }] }).replace('\u2603', '\\u2603') }, 'x-gateway-config'],
    ];
    for (const [headers, param] of cases) {
      const res = await post(gwPaths.url, CHAT, chatBody(), headers);
      expect(res.status, res.text).toBe(400);
      expect(res.json.error).toMatchObject({ code: 'missing_required_parameter', param });
    }
    expect(connections).toBe(0);
  });

  it('valid values still build the provider address (the request reaches the configured host)', async () => {
    const res = await post(gwPaths.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai', authorization: 'Bearer sk-hardening-caller-key-01' });
    // The listener drops every connection: the gateway reached it and answers 502.
    expect(res.status).toBe(502);
    expect(connections).toBeGreaterThan(0);
  });
});
