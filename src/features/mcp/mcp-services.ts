import type { ServerResponse } from 'node:http';
import type { GatewayContext, Identity } from '../../kernel/engine/context.js';
import { defineService } from '../../kernel/engine/services.js';
import type { Aggregator } from './aggregator.js';
import type { AuditLog } from './audit.js';
import type { McpEndpoint } from './mcp-endpoint.js';
import type { ProcessRelay } from './relay/process-relay.js';
import type { RemoteRelay } from './relay/remote-relay.js';
import type { LegacySessions } from './transport/legacy-sessions.js';
import type { ModernEndpoint } from './transport/modern-http.js';
import type { ServerPool } from './upstream/server-pool.js';
import type { ToolPins } from './pins/tool-pins.js';
import type { ToolListCache } from './upstream/tool-list-cache.js';
import type { SessionEnds } from './relay/session-ends.js';
import type { SessionBus } from './relay/session-bus.js';
import type { AnswerSteps } from './dispatch/answer-steps.js';
import type { UserConnections } from './connections/user-connections.js';

/** The parts of the tool-server endpoint: tool servers, the aggregator, the two transports, the audit log. */
export interface McpParts {
  pool: ServerPool;
  aggregator: Aggregator;
  /** Tools pinned against silent changes (absent when every server's pin is off). */
  pins: ToolPins | undefined;
  /** Each tool server's tool list as the gateway read it last (tools/list; the admin API pages it). */
  toolLists: ToolListCache;
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
  /** Each user's connections to the servers of auth.upstream per_user_oauth (absent when none is configured or without a store). */
  connections: UserConnections | undefined;
  /**
   * Serves one request of /mcp or /mcp/<server> (its JSON-RPC body parsed, the caller's
   * identity headers as the forward-identity stage computed them, the answer steps the stages
   * before added): the transport writes the answer, once the steps have seen the answers they want.
   */
  serve(ctx: GatewayContext, res: ServerResponse, identity: Identity, body: unknown, identityHeaders: Record<string, string> | undefined, steps?: AnswerSteps): Promise<void>;
}

/** How often each tool of a server was called (with a gateway key), as the usage ledger counts it across instances. */
export interface ToolCallStats {
  calls: number;
  errors: number;
  /** Unix milliseconds of the last call; null: never. */
  last_at: number | null;
}

/** The calls of each tool of `server`, by tool name (provided by the usage ledger's owner; absent: not counted). */
export const TOOL_CALL_STATS = defineService<(server: string) => Promise<Map<string, ToolCallStats>>>('tool-call-stats');

/** The tool-server endpoint: its audit log and configured servers at once, its MCP parts when loaded. */
export const MCP = defineService<McpEndpoint>('mcp');
