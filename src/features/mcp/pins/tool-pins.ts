import type { Identity } from '../../../kernel/engine/context.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import type { SeriesCounter } from '../../../kernel/observability/series-metrics.js';
import type { AuditLog } from '../audit.js';
import type { Refusal, ToolGate } from '../dispatch/access-step.js';
import { prefixedName } from '../naming.js';
import { changedFields, pinOf, PROMPT_FIELDS, TOOL_FIELDS } from './canonical-definition.js';
import type { PinKind, PinRow, PinStore } from './pin-store.js';

type Item = Record<string, unknown>;

export type PinMode = 'strict' | 'warn' | 'off';

/** The JSON-RPC error of a call of a tool held for approval (the gateway's own range, next to -32005 guardrail). */
export const TOOL_NOT_APPROVED = -32006;

/** Where a tool served under `warn` says that it changed since it was pinned. */
export const PIN_META = 'io.gateway/pin';

/**
 * The name that stands for a server's instructions on the approve route
 * (POST /v1/admin/mcp/servers/{name}/tools/@instructions/approve): `@` is not a character of an
 * MCP tool name, so no tool can take it.
 */
export const INSTRUCTIONS_PIN = '@instructions';

/** What an admin approves: a tool, a prompt, or the server's instructions. */
export type ApprovedKind = 'tool' | 'prompt' | 'instructions';

/** The gateway itself, as the one who noticed a change on its own list. */
const GATEWAY_SELF: Identity = Object.freeze({ kind: 'gateway', id: 'gateway' }) as Identity;

/** How often an instance reads the pins again (approvals made through another instance). */
const RELOAD_MS = 10_000;

interface Sighting {
  /** The tool's definition as last seen (digest, canonical text). */
  digest: string;
  text: string;
}

/** What the gateway holds of one definition it saw: pinned and served, changed, or new since the first list. */
type Verdict = { status: 'pinned' } | { status: 'changed'; fields: string[] } | { status: 'new' };

function key(kind: PinKind, name: string): string {
  return `${kind}\u0000${name}`;
}

/**
 * Tools pinned against silent changes (contract §6, `mcpServers.<name>.pin`). The first list a
 * server gives the gateway pins every tool, prompt and its instructions (a SHA-256 of each
 * whole canonical definition, in the store every instance shares: trust on first use). After
 * that, a definition that differs from its pin, or a tool that was not there, is noted once
 * (a warning line, an audit line, gateway_mcp_pin_changes_total) with the fields that changed;
 * under `strict` the tool is left out of every list and its calls are refused until an admin
 * approves it (changed instructions: the pinned text is advertised instead), under `warn` it is
 * served, marked in `_meta["io.gateway/pin"]`.
 */
export class ToolPins implements ToolGate {
  private readonly pins = new Map<string, Map<string, PinRow>>();
  /** What each server's lists showed last (a call is decided by the definition last seen). */
  private readonly seen = new Map<string, Map<string, Sighting>>();
  /** Changes already told (server, name, digest): each is logged, audited and counted once per instance. */
  private readonly told = new Set<string>();
  private loaded = false;
  /** Pins made here whose write to the store has not landed yet. */
  private readonly unwritten = new Map<string, PinRow>();
  /** Pins made in this turn of the event loop, written together at its end (a server's first list: one transaction). */
  private toWrite: PinRow[] = [];
  /** Writes of pins under way. */
  private readonly writing = new Set<Promise<void>>();
  private reloader: NodeJS.Timeout | undefined;

  constructor(
    private readonly modes: ReadonlyMap<string, PinMode>,
    private readonly store: PinStore,
    private readonly audit: AuditLog,
    private readonly logger: Logger,
    private readonly changes?: SeriesCounter,
  ) {}

  /** Reads the pins of the configured servers, then again every few seconds (approvals made elsewhere). */
  async load(): Promise<void> {
    await this.reload();
    this.reloader ??= setInterval(() => void this.reload().catch((err: Error) => this.logger.warn({ err: err.message }, 'could not read the pinned MCP tools')), RELOAD_MS);
    this.reloader.unref();
  }

  close(): void {
    if (this.reloader) clearInterval(this.reloader);
    this.reloader = undefined;
  }

  private async reload(): Promise<void> {
    const servers = [...this.modes].filter(([, mode]) => mode !== 'off').map(([name]) => name);
    const rows = await this.store.rows(servers);
    const fresh = new Map<string, Map<string, PinRow>>();
    for (const row of rows) {
      let of = fresh.get(row.server);
      if (!of) fresh.set(row.server, (of = new Map()));
      of.set(key(row.kind, row.name), row);
    }
    // Pins made here whose write has not landed yet are kept.
    for (const [id, row] of this.unwritten) {
      let of = fresh.get(row.server);
      if (!of) fresh.set(row.server, (of = new Map()));
      if (!of.has(id)) of.set(id, row);
    }
    this.pins.clear();
    for (const [server, rowsOf] of fresh) this.pins.set(server, rowsOf);
    this.loaded = true;
  }

  modeOf(server: string): PinMode {
    return this.modes.get(server) ?? 'off';
  }

  watches(server: string): boolean {
    return this.loaded && this.modeOf(server) !== 'off';
  }

  /** The tools of a `server` list that may be shown (what it shows is noted; the first list pins them all). */
  screen(server: string, tools: Item[], identity: Identity = GATEWAY_SELF): Item[] {
    if (!this.watches(server)) return tools;
    const out: Item[] = [];
    const seen = this.seenOf(server);
    const first = this.takeBaseline(server, 'tool');
    for (const tool of tools) {
      if (!tool || typeof tool.name !== 'string') continue;
      const pin = pinOf(tool, TOOL_FIELDS);
      seen.set(key('tool', tool.name), pin);
      const verdict = this.judge(server, 'tool', tool.name, pin, identity, first);
      if (verdict.status === 'pinned') out.push(tool);
      else if (this.modeOf(server) === 'warn') out.push({ ...tool, _meta: { ...((tool._meta as Item | undefined) ?? {}), [PIN_META]: warning(verdict) } });
    }
    return out;
  }

  /** The prompts of a `server` list that may be shown (as tools: pinned on first sight, a changed one hidden under strict). */
  screenPrompts(server: string, prompts: Item[], identity: Identity = GATEWAY_SELF): Item[] {
    if (!this.watches(server)) return prompts;
    const strict = this.modeOf(server) === 'strict';
    const seen = this.seenOf(server);
    const first = this.takeBaseline(server, 'prompt');
    return prompts.filter((prompt) => {
      if (!prompt || typeof prompt.name !== 'string') return true;
      const pin = pinOf(prompt, PROMPT_FIELDS);
      seen.set(key('prompt', prompt.name), pin);
      const verdict = this.judge(server, 'prompt', prompt.name, pin, identity, first);
      return verdict.status === 'pinned' || !strict;
    });
  }

  /** The server's instructions, as the gateway got them when it connected: pinned, a change noted. */
  noteInstructions(server: string, instructions: string | undefined): void {
    this.instructions(server, instructions);
  }

  /**
   * The instructions of `server` that may be advertised, given those it sent (when the gateway
   * connected, or in the initialize answer of a session's own connection or process): pinned on
   * first sight, a change noted (logged, audited, counted once); under `strict` a changed text is
   * held until an admin approves it (the reserved name INSTRUCTIONS_PIN on the approve route):
   * the pinned text is advertised instead (undefined when the pinned server had none).
   */
  instructions(server: string, instructions: string | undefined, identity: Identity = GATEWAY_SELF): string | undefined {
    if (!this.watches(server)) return instructions;
    const first = this.takeBaseline(server, 'instructions');
    const verdict = this.judge(server, 'instructions', '', pinOf({ instructions: instructions ?? '' }, ['instructions']), identity, first);
    if (verdict.status === 'pinned' || this.modeOf(server) !== 'strict') return instructions;
    return this.pinnedInstructions(server);
  }

  /** The approved (pinned) instructions of `server`; undefined when none were pinned (or they were empty). */
  private pinnedInstructions(server: string): string | undefined {
    const row = this.pins.get(server)?.get(key('instructions', ''));
    if (!row?.digest || !row.definition) return undefined;
    try {
      const text = (JSON.parse(row.definition) as { instructions?: unknown }).instructions;
      return typeof text === 'string' && text ? text : undefined;
    } catch {
      return undefined;
    }
  }

  refuses(server: string, tool: string): Refusal | undefined {
    return this.holds(server, 'tool', tool);
  }

  refusesPrompt(server: string, prompt: string): Refusal | undefined {
    return this.holds(server, 'prompt', prompt);
  }

  /** Why a request naming `name` (a tool or a prompt) of `server` is held under strict; undefined when it may go. */
  private holds(server: string, kind: 'tool' | 'prompt', name: string): Refusal | undefined {
    if (!this.watches(server) || this.modeOf(server) !== 'strict' || !this.baselined(server, kind)) return undefined;
    const row = this.pins.get(server)?.get(key(kind, name));
    const seen = this.seen.get(server)?.get(key(kind, name));
    const what = `${kind} ${prefixedName(server, name)}`;
    if (!row || !row.digest) {
      // A tool that appeared after the server's first list: held until an admin approves it.
      if (!row && !seen) return undefined; // never listed: the server answers for an unknown name
      return held(server, kind, name, `${what} is new since the server's ${kind}s were pinned and waits for approval`, []);
    }
    // The definition this instance saw last, or else a change another instance saw (noted in the store) and not approved yet.
    const current = seen ?? (row.pendingDigest && row.pendingDefinition !== null ? { digest: row.pendingDigest, text: row.pendingDefinition } : undefined);
    if (current && current.digest !== row.digest) {
      const fields = changedFields(row.definition, current.text, kind === 'tool' ? TOOL_FIELDS : PROMPT_FIELDS);
      return held(server, kind, name, `${what} changed since it was pinned (${fields.join(', ') || 'definition'}) and waits for approval`, fields);
    }
    return undefined;
  }

  /**
   * An admin approves the definition of `tool` last seen (a change or a new tool): its pin
   * becomes that definition. Answers the approved pin, or undefined when nothing waits.
   */
  async approve(server: string, tool: string, kind: ApprovedKind = 'tool'): Promise<PinRow | undefined> {
    const approved = await this.store.approve(server, kind, tool);
    if (!approved) return undefined;
    this.rowsOf(server).set(key(kind, tool), approved);
    this.logger.info({ mcpServer: server, kind, name: tool, digest: approved.digest }, `mcp ${kind} definition approved`);
    return approved;
  }

  /** The pinned row of a tool or prompt (for the approval route). */
  pinned(server: string, name: string, kind: ApprovedKind = 'tool'): Promise<PinRow | undefined> {
    return this.store.row(server, kind, name);
  }

  /** The pinned rows of some tools or prompts of `server`, by name, in one read of the store (a page of the admin API). */
  async pinnedNamed(server: string, names: readonly string[], kind: 'tool' | 'prompt' = 'tool'): Promise<Map<string, PinRow>> {
    return new Map((await this.store.rowsNamed(server, kind, names)).map((row) => [row.name, row]));
  }

  private seenOf(server: string): Map<string, Sighting> {
    let seen = this.seen.get(server);
    if (!seen) this.seen.set(server, (seen = new Map()));
    return seen;
  }

  /** Whether the first list of `kind` of `server` was taken (here or by another instance). */
  private baselined(server: string, kind: PinKind): boolean {
    return this.pins.get(server)?.has(key('baseline', kind)) ?? false;
  }

  /** True for the first list of `kind` of `server`: its entries are pinned as they are (trust on first use); marks it taken. */
  private takeBaseline(server: string, kind: PinKind): boolean {
    if (this.baselined(server, kind)) return false;
    this.pinNew(this.rowsOf(server), { server, kind: 'baseline', name: kind, digest: '-', definition: '', pendingDigest: null, pendingDefinition: null });
    return true;
  }

  private rowsOf(server: string): Map<string, PinRow> {
    let of = this.pins.get(server);
    if (!of) this.pins.set(server, (of = new Map()));
    return of;
  }

  /** Compares one definition with its pin; on the first list (`first`) it is pinned as it is, later a difference is noted. */
  private judge(server: string, kind: PinKind, name: string, pin: Sighting, identity: Identity, first: boolean): Verdict {
    const of = this.rowsOf(server);
    const row = of.get(key(kind, name));
    if (!row) {
      if (first || this.modeOf(server) !== 'strict' || kind !== 'tool') {
        this.pinNew(of, { server, kind, name, digest: pin.digest, definition: pin.text, pendingDigest: null, pendingDefinition: null });
        if (first) return { status: 'pinned' };
        this.tell(server, kind, name, pin.digest, 'new', [], identity);
        return kind === 'tool' ? { status: 'new' } : { status: 'pinned' };
      }
      // strict: a tool that appears later is held until an admin approves it.
      this.pinNew(of, { server, kind, name, digest: '', definition: '', pendingDigest: pin.digest, pendingDefinition: pin.text });
      this.tell(server, kind, name, pin.digest, 'new', [], identity);
      return { status: 'new' };
    }
    if (row.digest === pin.digest) return { status: 'pinned' };
    if (!row.digest) {
      if (row.pendingDigest !== pin.digest) this.notePending(row, pin);
      this.tell(server, kind, name, pin.digest, 'new', [], identity);
      return { status: 'new' };
    }
    const fields = changedFields(row.definition, pin.text, kind === 'tool' ? TOOL_FIELDS : kind === 'prompt' ? PROMPT_FIELDS : ['instructions']);
    if (row.pendingDigest !== pin.digest) this.notePending(row, pin);
    this.tell(server, kind, name, pin.digest, 'changed', fields, identity);
    return { status: 'changed', fields };
  }

  private pinNew(of: Map<string, PinRow>, row: PinRow): void {
    const id = key(row.kind, row.name);
    of.set(id, row);
    this.unwritten.set(`${row.server}\u0000${id}`, row);
    if (!this.toWrite.length) queueMicrotask(() => this.writePins());
    this.toWrite.push(row);
  }

  /** Writes the pins made since the last write, together (one transaction, a few multi-row INSERTs). */
  private writePins(): void {
    const rows = this.toWrite;
    if (!rows.length) return;
    this.toWrite = [];
    const write = this.store
      .insertMany(rows)
      .catch((err: Error) => {
        const servers = new Map<string, number>();
        for (const row of rows) servers.set(row.server, (servers.get(row.server) ?? 0) + 1);
        for (const [server, pins] of servers) this.logger.warn({ mcpServer: server, pins, err: err.message }, 'could not store an MCP pin');
      })
      .finally(() => {
        for (const row of rows) this.unwritten.delete(`${row.server}\u0000${key(row.kind, row.name)}`);
        this.writing.delete(write);
      });
    this.writing.add(write);
  }

  /** Resolves once the pins made so far are in the store (or could not be written: a warning said so). */
  async written(): Promise<void> {
    this.writePins();
    await Promise.all(this.writing);
  }

  private notePending(row: PinRow, pin: Sighting): void {
    row.pendingDigest = pin.digest;
    row.pendingDefinition = pin.text;
    void this.store
      .notePending(row.server, row.kind, row.name, pin.digest, pin.text)
      .catch((err: Error) => this.logger.warn({ mcpServer: row.server, err: err.message }, 'could not store a changed MCP definition'));
  }

  /** A change is logged, audited and counted, once per server, name and definition on this instance. */
  private tell(server: string, kind: PinKind, name: string, digest: string, change: 'new' | 'changed', fields: string[], identity: Identity): void {
    const id = `${server}\u0000${kind}\u0000${name}\u0000${digest}`;
    if (this.told.has(id)) return;
    if (this.told.size > 10_000) this.told.clear();
    this.told.add(id);
    const mode = this.modeOf(server);
    const held = mode === 'strict';
    const what = kind === 'instructions' ? `the instructions of tool server ${server}` : `${kind} ${prefixedName(server, name)}`;
    const reason = change === 'new' ? `${what} is new since the server was pinned` : `${what} changed since it was pinned: ${fields.join(', ') || 'definition'}`;
    this.changes?.inc([server, kind, change, mode]);
    this.logger.warn({ mcpServer: server, kind, name, change, changed: fields, digest, pin: mode, held }, `mcp ${kind} definition ${change === 'new' ? 'new' : 'changed'}`);
    this.audit.record(identity, {
      method: kind === 'prompt' ? 'prompts/list' : kind === 'instructions' ? 'initialize' : 'tools/list',
      server,
      name: name || undefined,
      allowed: !held,
      reason: held ? `${reason} (held for approval)` : reason,
      outcome: held ? 'denied' : 'ok',
      ms: 0,
    });
  }
}

function warning(verdict: Verdict): Item {
  return verdict.status === 'changed' ? { status: 'changed', changed: verdict.fields } : { status: verdict.status };
}

function held(server: string, kind: 'tool' | 'prompt', name: string, reason: string, fields: string[]): Refusal {
  const what = kind === 'tool' ? 'Tool' : 'Prompt';
  return {
    reason,
    code: TOOL_NOT_APPROVED,
    message: `${what} not approved: ${reason}; an admin approves it with POST /v1/admin/mcp/servers/${server}/${kind}s/${name}/approve.`,
    data: kind === 'tool' ? { server, tool: name, changed: fields } : { server, prompt: name, changed: fields },
  };
}
