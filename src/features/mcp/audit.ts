import type { Identity } from '../../kernel/engine/context.js';
import type { Logger } from '../../kernel/observability/logger.js';
import type { SeriesCounter } from '../../kernel/observability/series-metrics.js';
import { FixedLines, quote } from '../../kernel/observability/fixed-lines.js';
import { redactRepeatedLogText } from '../../kernel/errors/redact.js';
import type { ToolLabels } from './tool-labels.js';
import type { ToolCallObserver } from './tool-call-observers.js';

/** One audit line per authorization decision on /mcp: who, what, allowed or not, how long. */
export interface AuditEntry {
  method: string;
  server?: string;
  name?: string;
  allowed: boolean;
  reason?: string;
  /** ok, error (JSON-RPC error), tool_error (the tool answered isError). */
  outcome?: 'ok' | 'error' | 'tool_error' | 'denied';
  /** The gateway request the call was made for (a tool loop's request). */
  partOf?: string;
  ms: number;
  shown?: number;
  hidden?: number;
}

export function who(identity: Identity): string {
  return identity.user ?? identity.email ?? identity.name ?? identity.id;
}

/**
 * Audit lines are written with a fixed serializer (the JSON text pino writes for the same
 * fields: `audit`, `who`, `credential`, then the entry's fields in their order, `ms` rounded to
 * two decimals, `msg`), held with the request lines of the same turn; like every log line, the
 * fields pass the one line redactor.
 */
export class AuditLog {
  private readonly lines: FixedLines;

  constructor(
    private readonly logger: Logger,
    /** Counts tool calls (gateway_mcp_calls_total{server,tool,outcome}). */
    private readonly calls?: SeriesCounter,
    /** The known servers and tools (what a call's labels may show); the rest is `unknown`. */
    readonly tools?: ToolLabels,
    /** Told of every allowed tools/call as it ends (metering). */
    private readonly observers: readonly ToolCallObserver[] = [],
  ) {
    this.lines = new FixedLines(logger);
  }

  record(identity: Identity, entry: AuditEntry): void {
    if (entry.method === 'tools/call' && this.calls) {
      const [server, tool] = this.tools ? this.tools.of(entry.server, entry.name) : ['unknown', 'unknown'];
      this.calls.inc([server, tool, entry.outcome ?? 'ok']);
    }
    if (entry.method === 'tools/call' && entry.allowed && entry.server && entry.name && this.observers.length) {
      const call = {
        server: entry.server,
        tool: entry.name,
        outcome: entry.outcome === 'tool_error' || entry.outcome === 'error' ? entry.outcome : ('ok' as const),
        ms: entry.ms,
        ...(entry.partOf === undefined ? {} : { partOf: entry.partOf }),
      };
      for (const observe of this.observers) {
        try {
          observe(identity, call);
        } catch (err) {
          this.logger.warn({ err: (err as Error).message }, 'a tool call observer failed');
        }
      }
    }
    // Allowed decisions are info lines, refusals warnings: nothing to build when the level is off.
    const level = entry.allowed ? 'info' : 'warn';
    const lines = this.lines;
    if (!lines.enabled(level)) return;
    const ms = Math.round(entry.ms * 100) / 100;
    if (!lines.fixed) {
      const line = { audit: 'mcp', who: who(identity), credential: `${identity.kind}:${identity.id}`, ...entry, ms };
      if (entry.allowed) this.logger.info(line, 'mcp access');
      else this.logger.warn(line, 'mcp access denied');
      return;
    }
    // The fields repeat from call to call but for `ms` (a number, no secret): the rest is masked once, then looked up.
    let fields = `,"audit":"mcp","who":${JSON.stringify(who(identity))},"credential":${JSON.stringify(`${identity.kind}:${identity.id}`)}`;
    let afterMs = '';
    let msText: string | undefined;
    for (const key in entry) {
      if (key === 'ms') {
        msText = `,"ms":${jsonValue(ms)}`;
        continue;
      }
      const value = entry[key as keyof AuditEntry];
      if (value === undefined) continue;
      const field = `,${quote(key)}:${jsonValue(value)}`;
      if (msText === undefined) fields += field;
      else afterMs += field;
    }
    const text = redactRepeatedLogText(fields) + (msText ?? '') + (afterMs && redactRepeatedLogText(afterMs));
    lines.end(lines.head(level) + text, entry.allowed ? 'mcp access' : 'mcp access denied');
  }
}

/** A field's JSON as pino writes it (numbers that are not finite are null). */
function jsonValue(value: string | number | boolean): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  return value ? 'true' : 'false';
}
