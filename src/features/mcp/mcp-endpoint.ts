import type { GatewayServices } from '../../kernel/engine/services.js';
import { AuditLog } from './audit.js';
import { TOOL_CALL_OBSERVERS } from './tool-call-observers.js';
import { ToolLabels } from './tool-labels.js';
import type { McpParts } from './mcp-services.js';

/**
 * The tool-server endpoint of one config: what every /mcp request needs before the MCP layer
 * (the audit log and its counter, which tool servers are configured), and the MCP parts (the
 * SDK, the tool servers, the transports), loaded only when needed: at start-up when the config
 * names tool servers, else on the first request that reaches the transport. A gateway that
 * serves no tool server never loads the MCP SDK.
 */
export class McpEndpoint {
  readonly audit: AuditLog;
  /** The MCP parts, once loaded. */
  parts: McpParts | undefined;
  private loading: Promise<McpParts> | undefined;
  private readonly names: ReadonlySet<string>;

  constructor(private readonly services: GatewayServices) {
    const calls = services.metrics.counter(
      'gateway_mcp_calls_total',
      'Tool calls on /mcp and /mcp/<server>, by tool server, tool (one the server listed, else unknown) and outcome (ok, tool_error, error, denied).',
      ['server', 'tool', 'outcome'],
    );
    this.names = new Set(
      Object.entries(services.config.mcpServers ?? {})
        .filter(([, server]) => server.enabled !== false)
        .map(([name]) => name),
    );
    this.audit = new AuditLog(
      services.logger,
      calls,
      new ToolLabels(this.names),
      services.once(TOOL_CALL_OBSERVERS, () => []),
    );
  }

  /** Whether the config names an enabled tool server (then the parts are loaded at start-up). */
  get hasServers(): boolean {
    return this.names.size > 0;
  }

  /** Whether `name` is an enabled tool server of the config. */
  has(name: string): boolean {
    return this.names.has(name);
  }

  /** The MCP parts: loaded (the MCP SDK with them) on first use, once. */
  load(): Promise<McpParts> {
    this.loading ??= import('./mcp-parts.js').then(({ createMcpParts }) => (this.parts = createMcpParts(this.services, this.audit)));
    return this.loading;
  }

  /** Shutdown began: no tool server is restarted, long-lived streams end. */
  drain(): void {
    const parts = this.parts;
    if (!parts) return;
    parts.pool.stopRestarts();
    parts.modern.close();
    parts.legacy.drain();
    parts.pool.drain();
    parts.processRelay.drain();
  }

  async close(): Promise<void> {
    const parts = this.loading && (await this.loading.catch(() => undefined));
    if (!parts) return;
    parts.modern.close();
    parts.pins?.close();
    // Before the bus closes: requests other instances hold for this one's process sessions are told the sessions ended.
    await parts.processRelay.close();
    // ...and the subscriptions this instance's copies of /mcp sessions hold are no longer named as held here.
    await parts.legacy.letGo();
    parts.bus.close();
    await parts.legacy.close();
    await parts.pool.close();
  }
}
