import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Identity } from '../../../kernel/engine/context.js';
import type { IdentityForwardingConfig, McpServerConfig } from '../../../generated/gateway.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import { forwardedIdentity } from '../../auth/index.js';
import { UpstreamServer } from './upstream-server.js';
import { GroupStdioTransport } from './group-stdio-transport.js';

/** Processes of client sessions a process server runs at most, unless mcpServers.<name>.maxSessions says otherwise. */
export const DEFAULT_MAX_SESSIONS = 64;

/**
 * A tool server the gateway runs as a child process (stdio): started once and shared, restarted
 * with backoff when it dies, its stderr logged line by line under its name (configured env
 * values masked), stopped at shutdown (after the drain). On POSIX it leads its own process group. It receives only the safe default environment plus
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
    // Every env value is a credential as far as callers and logs are concerned (the redactor
    // skips values too short or too plain to mask).
    this.secrets = Object.values(config.env ?? {});
  }

  protected createTransport(): Transport {
    const params = { command: this.config.command!, args: this.config.args ?? [], env: this.config.env, cwd: this.config.cwd };
    // POSIX: the server leads a process group of its own (a signal to the gateway's group leaves
    // it serving the calls in flight; the gateway stops it after the drain).
    const transport = process.platform === 'win32' ? this.sdkTransport(params) : new GroupStdioTransport(params);
    const stderr = transport.stderr as Readable | null;
    if (stderr) {
      // A stream error (the pipe breaking as the child dies) must not become an uncaught one.
      stderr.on('error', (err) => this.logger.debug({ mcpServer: this.name, err: this.redact(err.message) }, 'tool server stderr failed'));
      const lines = createInterface({ input: stderr, crlfDelay: Infinity });
      lines.on('error', () => undefined);
      lines.on('line', (line) => {
        if (line.trim()) this.logger.info({ mcpServer: this.name, stderr: this.redact(line).slice(0, 4096) }, 'tool server stderr');
      });
    }
    return transport;
  }

  private sdkTransport(params: { command: string; args: string[]; env?: Record<string, string>; cwd?: string }): StdioClientTransport {
    const transport = new StdioClientTransport({ ...params, stderr: 'pipe' });
    // The SDK pipes the child's stderr into its stream without listening for its errors.
    const start = transport.start.bind(transport);
    transport.start = async () => {
      await start();
      const child = (transport as unknown as { _process?: { stderr?: Readable | null; stdout?: Readable | null } })._process;
      child?.stderr?.on('error', () => undefined);
    };
    return transport;
  }

  /** A new process of this server for one relayed client session (not started yet). */
  spawnSessionTransport(): Transport {
    return this.createTransport();
  }

  get maxSessions(): number | undefined {
    return this.config.maxSessions;
  }

  /** Processes of client sessions (relayed /mcp/<server> sessions and /mcp sessions' own) share maxSessions. */
  override get linkCapacity(): number {
    return this.config.maxSessions ?? DEFAULT_MAX_SESSIONS;
  }

  /** The `_meta["io.gateway/identity"]` value for a caller (undefined when nothing is forwarded). */
  identityFor(identity: Identity): Record<string, string> | undefined {
    return this.identityMeta(identity);
  }

  redactText(text: string): string {
    return this.redact(text);
  }

  protected identityMeta(identity: Identity): Record<string, string> | undefined {
    const values = forwardedIdentity(identity, this.forwarding);
    return Object.keys(values).length ? (values as Record<string, string>) : undefined;
  }

  protected withIdentity<T>(_identity: Identity, fn: () => Promise<T>): Promise<T> {
    return fn();
  }
}
