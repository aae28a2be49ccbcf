import { EventEmitter } from 'node:events';
import type { GatewayConfig } from '../../../generated/gateway.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import { ProcessServer } from './process-server.js';
import { RemoteServer } from './remote-server.js';
import type { UserConnections } from '../connections/user-connections.js';
import type { ListKind, UpstreamServer } from './upstream-server.js';

/**
 * Every enabled tool server of mcpServers, in config order. Emits 'list_changed' (server, kind)
 * when a server's tools, prompts or resources may have changed (its notification, or it came
 * up or went down).
 */
export class ServerPool extends EventEmitter {
  readonly servers = new Map<string, UpstreamServer>();

  /** `connections`: each user's connections, for the servers of auth.upstream per_user_oauth. */
  constructor(config: GatewayConfig, logger: Logger, connections?: () => UserConnections | undefined) {
    super();
    this.setMaxListeners(0);
    const forwarding = config.identityForwarding ?? {};
    for (const [name, server] of Object.entries(config.mcpServers ?? {})) {
      if (server.enabled === false) continue;
      const upstream = server.url ? new RemoteServer(name, server, logger, forwarding, connections) : new ProcessServer(name, server, logger, forwarding);
      upstream.on('list_changed', (kind: ListKind) => this.emit('list_changed', name, kind));
      this.servers.set(name, upstream);
    }
  }

  /** Whether a server reads the caller of the request being served (see UpstreamServer.readsCaller). */
  get readsCaller(): boolean {
    for (const server of this.servers.values()) if (server.readsCaller) return true;
    return false;
  }

  names(): string[] {
    return [...this.servers.keys()];
  }

  get(name: string): UpstreamServer | undefined {
    return this.servers.get(name);
  }

  /** Starts every server at once; resolves when each first attempt ended (failures retry in the background). */
  async start(): Promise<void> {
    await Promise.all([...this.servers.values()].map((s) => s.start()));
  }

  /** Shutdown began: no server is restarted from now on (calls on a connected one still run). */
  stopRestarts(): void {
    for (const server of this.servers.values()) server.stopRestarts();
  }

  /** Shutdown began: no server is restarted from now on. */
  drain(): void {
    for (const s of this.servers.values()) s.drain();
  }

  async close(): Promise<void> {
    await Promise.all([...this.servers.values()].map((s) => s.close()));
  }
}
