import { KnownLabels } from '../../kernel/observability/known-labels.js';

/**
 * The label values of gateway_mcp_calls_total: a configured server's name (else `unknown`) and
 * a tool that server listed (else `unknown`), so made-up names never become series. A server's
 * tools are learned from its own tools/list answers: those the gateway reads for itself (the tool
 * list cache: when it connects or says its list changed, and for the admin API), and the lists
 * it aggregates for callers.
 */
export class ToolLabels {
  private readonly known = new KnownLabels();

  constructor(private readonly servers: ReadonlySet<string>) {}

  /** The server and tool labels of one call. */
  of(server: string | undefined, tool: string | undefined): [string, string] {
    if (server === undefined || !this.servers.has(server)) return ['unknown', 'unknown'];
    return [server, this.known.pick(server, tool, 'unknown')];
  }

  /** Tool names `server` listed. */
  learn(server: string, names: Iterable<unknown>): void {
    if (!this.servers.has(server)) return;
    for (const name of names) if (typeof name === 'string') this.known.add(server, name);
  }
}
