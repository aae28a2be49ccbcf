import { Writable } from 'node:stream';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildConfig } from '../../src/config.js';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/gateway.js';

/** Log lines the gateway wrote, parsed. */
export class LogCollector extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    for (const line of chunk.toString('utf8').split('\n')) if (line) this.lines.push(line);
    cb();
  }
  get text(): string {
    return this.lines.join('\n');
  }
  records(): any[] {
    return this.lines.map((l) => JSON.parse(l));
  }
}

export interface TestGateway {
  gateway: Gateway;
  url: string;
  logs: LogCollector;
  dataDir: string;
  close(): Promise<void>;
}

/**
 * Starts the gateway on a free loopback port with `config` (a raw config tree: env expansion,
 * overrides and validation apply as at start-up) and its own data folder.
 */
export async function startGateway(
  config: Record<string, unknown> = {},
  options: GatewayOptions & { env?: NodeJS.ProcessEnv; /** A data folder to use (and keep): a restart on the same store. */ dataDir?: string } = {},
): Promise<TestGateway> {
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'gw-test-'));
  const logs = new LogCollector();
  const raw = { logging: { level: 'info' }, ...config };
  const env = { ...process.env, ...options.env, GATEWAY_DATA_DIR: dataDir };
  const built = buildConfig(raw, 'test', { env });
  const { dataDir: _kept, ...gatewayOptions } = options;
  const gateway = await createGateway(built, { logDestination: logs, ...gatewayOptions });
  const url = await gateway.listen(0, '127.0.0.1');
  return {
    gateway,
    url,
    logs,
    dataDir,
    async close() {
      await gateway.close(2000);
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
