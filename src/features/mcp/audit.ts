import type { Identity } from '../../kernel/engine/context.js';
import type { Logger } from '../../kernel/observability/logger.js';

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
  constructor(private readonly logger: Logger) {}

  record(identity: Identity, entry: AuditEntry): void {
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
