import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildConfig, ConfigError } from '../../../src/kernel/config/load-config.js';
import { createGateway, type Gateway } from '../../../src/gateway.js';
import { freePort } from '../../helpers/built-gateway.js';
import { LogCollector } from '../../helpers/start-gateway.js';

/** A reload that changes the listen address moves the listener; one that cannot listen keeps the running one. */
describe('reload and the listener', () => {
  const open: Array<{ gw: Gateway; dir: string }> = [];
  const blockers: Server[] = [];
  afterEach(async () => {
    for (const b of blockers.splice(0)) b.close();
    for (const { gw, dir } of open.splice(0)) {
      await gw.close(500);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  async function gateway(port: number) {
    const dir = mkdtempSync(join(tmpdir(), 'gw-reload-listener-'));
    const config = (p: number) => buildConfig({ server: { host: '127.0.0.1', port: p }, logging: { level: 'warn' } }, 't', { env: { GATEWAY_DATA_DIR: dir } });
    const gw = await createGateway(config(port), { logDestination: new LogCollector() });
    open.push({ gw, dir });
    await gw.listen();
    return { gw, config };
  }

  const health = (port: number) =>
    fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.status,
      (err) => (err as { cause?: { code?: string } }).cause?.code,
    );

  it('a new server.port: the new address serves, the old one is closed, the store is kept', async () => {
    const [a, b] = [await freePort(), await freePort()];
    const { gw, config } = await gateway(a);
    const store = gw.services.get((await import('../../../src/kernel/store/store-capability.js')).STORE);
    await gw.reload(config(b));
    expect(gw.listenAddress).toBe(`127.0.0.1:${b}`);
    expect(await health(b)).toBe(200);
    expect(await health(a)).toBe('ECONNREFUSED');
    expect(gw.services.get((await import('../../../src/kernel/store/store-capability.js')).STORE)).toBe(store);
  });

  it('a new server.host on the same port: the running listener hands the port over, and the new address serves', async () => {
    const a = await freePort();
    const { gw } = await gateway(a);
    const dir = open.at(-1)!.dir;
    const wildcard = buildConfig({ server: { host: '0.0.0.0', port: a }, logging: { level: 'warn' } }, 't', { env: { GATEWAY_DATA_DIR: dir } });
    await gw.reload(wildcard);
    expect(gw.listenAddress).toBe(`0.0.0.0:${a}`);
    expect(gw.config.server?.host).toBe('0.0.0.0');
    expect(await health(a)).toBe(200);
    // and back: the wildcard listener hands it to the loopback one
    await gw.reload(buildConfig({ server: { host: '127.0.0.1', port: a }, logging: { level: 'warn' } }, 't', { env: { GATEWAY_DATA_DIR: dir } }));
    expect(gw.config.server?.host).toBe('127.0.0.1');
    expect(await health(a)).toBe(200);
  });

  it('a port already taken: the reload fails naming server.port, and the running listener keeps serving', async () => {
    const a = await freePort();
    const { gw, config } = await gateway(a);
    const blocker = createServer();
    blockers.push(blocker);
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as { port: number }).port;
    const before = gw.config;
    const failure = await gw.reload(config(taken)).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as ConfigError).problems).toEqual([`server.port: cannot listen (listen EADDRINUSE: address already in use 127.0.0.1:${taken})`]);
    expect(gw.config).toBe(before);
    expect(await health(a)).toBe(200);
  });
});
