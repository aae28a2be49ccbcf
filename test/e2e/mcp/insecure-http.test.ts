import { mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildConfig } from '../../../src/kernel/config/load-config.js';
import { createGateway, type Gateway } from '../../../src/gateway.js';
import { credentialTransportAllowed } from '../../../src/features/auth/transport-security.js';
import { LogCollector } from '../../helpers/start-gateway.js';
import { rawPost } from '../../helpers/mcp.js';

const ADMIN = 'admin-token-0123456789abcdef0123456789';

/** A non-loopback IPv4 address of this machine (e.g. eth0), if it has one. */
function externalAddress(): string | undefined {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return undefined;
}

describe('credentials over plain HTTP on a non-loopback address', () => {
  const address = externalAddress();
  const gateways: Gateway[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-insecure-'));
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.close(1000)));
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function start(server: Record<string, unknown> = {}) {
    const config = buildConfig({ auth: { enabled: true, type: 'bearer', adminToken: ADMIN }, server, logging: { level: 'warn' } }, 'test', {
      env: { ...process.env, GATEWAY_DATA_DIR: join(dataDir, String(gateways.length)) },
    });
    const gateway = await createGateway(config, { logDestination: new LogCollector() });
    gateways.push(gateway);
    const port = new URL(await gateway.listen(0, address ?? '127.0.0.1')).port;
    return `http://${address ?? '127.0.0.1'}:${port}`;
  }

  it('the decision: TLS always; plain HTTP on loopback only, unless server.allowInsecureHttp', () => {
    expect(credentialTransportAllowed({ encrypted: true, localAddress: '10.0.0.5' }, {})).toBe(true);
    expect(credentialTransportAllowed({ encrypted: false, localAddress: '127.0.0.1' }, {})).toBe(true);
    expect(credentialTransportAllowed({ encrypted: false, localAddress: '::ffff:127.0.0.1' }, {})).toBe(true);
    expect(credentialTransportAllowed({ encrypted: false, localAddress: '::1' }, {})).toBe(true);
    expect(credentialTransportAllowed({ encrypted: false, localAddress: '10.0.0.5' }, {})).toBe(false);
    expect(credentialTransportAllowed({ encrypted: false, localAddress: '::ffff:10.0.0.5' }, {})).toBe(false);
    expect(credentialTransportAllowed({ encrypted: false, localAddress: '10.0.0.5' }, { server: { allowInsecureHttp: true } })).toBe(true);
  });

  it(`refuses credentials with 403 on this machine's non-loopback address (${address ?? 'none found: loopback only'})`, async () => {
    const url = await start();
    const res = await fetch(`${url}/v1/auth/tokens`, { headers: { authorization: `Bearer ${ADMIN}` } });
    if (!address) {
      // No non-loopback interface here: the gateway is on loopback and must accept.
      expect(res.status).toBe(200);
      return;
    }
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: { type: 'permission_error', message: expect.stringMatching(/plain HTTP/) } });
    const mcp = await rawPost(`${url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: 'Bearer gwt_anything' });
    expect(mcp.status).toBe(403);
    // A gateway key on a provider route and on /v1/me: refused alike, before it is looked up.
    for (const path of ['/v1/me', '/v1/models']) {
      const keyed = await fetch(`${url}${path}`, { headers: { authorization: 'Bearer gwt_anything' } });
      expect(keyed.status, path).toBe(403);
      expect(await keyed.json()).toMatchObject({ error: { type: 'permission_error', message: expect.stringMatching(/plain HTTP/) } });
    }
    // Without a credential it is still a plain 401 (nothing was sent in the clear).
    const none = await rawPost(`${url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(none.status).toBe(401);
  });

  it('accepts them there with server.allowInsecureHttp (behind a TLS-terminating proxy)', async () => {
    const url = await start({ allowInsecureHttp: true });
    const res = await fetch(`${url}/v1/auth/tokens`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(res.status).toBe(200);
  });
});
