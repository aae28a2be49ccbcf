import type { Identity } from '../../kernel/engine/context.js';
import type { Logger } from '../../kernel/observability/logger.js';
import type { SeriesCounter } from '../../kernel/observability/series-metrics.js';

/** One audit line per authorization decision on /mcp: who, what, allowed or not, how long. */
export interface AuditEntry {
  method: string;
  server?: string;
  name?: string;
  allowed: boolean;
  reason?: string;
  /** ok, error (JSON-RPC error), tool_error (the tool answered isError). */
  outcome?: 'ok' | 'error' | 'tool_error' | 'denied';
  ms: number;
  shown?: number;
  hidden?: number;
}

export function who(identity: Identity): string {
  return identity.user ?? identity.email ?? identity.name ?? identity.id;
}

export class AuditLog {
  constructor(
    private readonly logger: Logger,
    /** Counts tool calls (gateway_mcp_calls_total{server,tool,outcome}). */
    private readonly calls?: SeriesCounter,
  ) {}

  record(identity: Identity, entry: AuditEntry): void {
    if (entry.method === 'tools/call' && this.calls) this.calls.inc([entry.server ?? 'unknown', entry.name ?? 'unknown', entry.outcome ?? 'ok']);
    // Allowed decisions are info lines: nothing to build when info is off.
    if (entry.allowed && !this.logger.isLevelEnabled('info')) return;
    const line = {
      audit: 'mcp',
      who: who(identity),
      credential: `${identity.kind}:${identity.id}`,
      ...entry,
      ms: Math.round(entry.ms * 100) / 100,
    };
    if (entry.allowed) this.logger.info(line, 'mcp access');
    else this.logger.warn(line, 'mcp access denied');
  }
}
