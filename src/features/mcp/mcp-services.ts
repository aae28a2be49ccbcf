import { defineService } from '../../kernel/engine/services.js';
import type { Aggregator } from './aggregator.js';
import type { AuditLog } from './audit.js';
import type { ProcessRelay } from './relay/process-relay.js';
import type { RemoteRelay } from './relay/remote-relay.js';
import type { LegacySessions } from './transport/legacy-sessions.js';
import type { ModernEndpoint } from './transport/modern-http.js';
import type { ServerPool } from './upstream/server-pool.js';
import type { SessionEnds } from './relay/session-ends.js';
import type { SessionBus } from './relay/session-bus.js';

/** The parts of the tool-server endpoint: tool servers, the aggregator, the two transports, the audit log. */
export interface McpParts {
  pool: ServerPool;
  aggregator: Aggregator;
  legacy: LegacySessions;
  modern: ModernEndpoint;
  audit: AuditLog;
  /** /mcp/<server> of a remote server, relayed. */
  remoteRelay: RemoteRelay;
  /** /mcp/<server> sessions of a process server, relayed (a process per session). */
  processRelay: ProcessRelay;
  /** Sessions ended with DELETE (remembered for every instance). */
  ends: SessionEnds;
  /** Messages of sessions between instances (Redis). */
  bus: SessionBus;
}

export const MCP = defineService<McpParts>('mcp');
