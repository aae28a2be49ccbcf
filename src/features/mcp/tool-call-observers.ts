import type { Identity } from '../../kernel/engine/context.js';
import { defineService } from '../../kernel/engine/services.js';

/** One tools/call that a caller was allowed to make, as it ended. */
export interface ObservedToolCall {
  server: string;
  tool: string;
  /** ok, tool_error (the tool answered isError) or error (no answer). */
  outcome: 'ok' | 'tool_error' | 'error';
  ms: number;
  /** The gateway request the call was made for (a tool loop's request), when not a call of /mcp itself. */
  partOf?: string;
}

export type ToolCallObserver = (identity: Identity, call: ObservedToolCall) => void;

/** Who wants to know of each tools/call on /mcp and /mcp/<server> (metering charges a per-tool price). */
export const TOOL_CALL_OBSERVERS = defineService<ToolCallObserver[]>('mcp-tool-call-observers');
