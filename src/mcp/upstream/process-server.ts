import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Identity } from '../../engine/context.js';
import type { IdentityForwardingConfig, McpServerConfig } from '../../generated/gateway.js';
import type { Logger } from '../../observability/logger.js';
import { forwardedIdentity } from '../identity-forwarding.js';
import { UpstreamServer } from './upstream-server.js';

/**
 * A tool server the gateway runs as a child process (stdio): started once and shared, restarted
 * with backoff when it dies, its stderr logged line by line under its name (configured env
 * values masked), stopped at shutdown. It receives only the safe default environment plus
 * `env`. The caller's identity travels in `params._meta["io.gateway/identity"]`.
 */
export class ProcessServer extends UpstreamServer {
  readonly kind = 'process' as const;
  readonly secrets: string[];

  constructor(
    name: string,
    config: McpServerConfig,
    logger: Logger,
    private readonly forwarding: IdentityForwardingConfig,
  ) {
    super(name, config, logger);
    this.secrets = Object.values(config.env ?? {}).filter((v) => v.length >= 8);
  }

  protected createTransport(): Transport {
    const transport = new StdioClientTransport({
      command: this.config.command!,
      args: this.config.args ?? [],
      env: this.config.env,
      cwd: this.config.cwd,
      stderr: 'pipe',
    });
    const stderr = transport.stderr as Readable | null;
    if (stderr) {
      const lines = createInterface({ input: stderr, crlfDelay: Infinity });
      lines.on('line', (line) => {
        if (line.trim()) this.logger.info({ mcpServer: this.name, stderr: this.redact(line).slice(0, 4096) }, 'tool server stderr');
      });
    }
    return transport;
  }

  protected identityMeta(identity: Identity): Record<string, string> | undefined {
    const values = forwardedIdentity(identity, this.forwarding);
    return Object.keys(values).length ? (values as Record<string, string>) : undefined;
  }

  protected withIdentity<T>(_identity: Identity, fn: () => Promise<T>): Promise<T> {
    return fn();
  }
}
