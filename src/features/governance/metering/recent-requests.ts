import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SqlStore } from '../../../kernel/store/sql-store.js';
import { badRequest, notFound } from '../../../contract/errors/gateway-error.js';
import type { UsageAttempt } from '../governance-types.js';
import { usdFromMicros } from '../prices/money.js';

/** One request of the usage ledger as GET /v1/admin/requests and its stream show it (no bodies, no credential). */
export interface RecentRequest {
  object: 'admin.request';
  id: string;
  request_id: string;
  /** Unix milliseconds. */
  at: number;
  key_id: string | null;
  user: string | null;
  team: string | null;
  route: string;
  provider: string | null;
  model: string | null;
  status: number;
  latency_ms: number;
  input_tokens: number;
  output_tokens: number;
  /** US dollars; null: the model has no price. */
  cost_usd: string | null;
}

const COLUMNS = 'id, request_id, at, key_id, user_id, team, route, provider, model, status, latency_ms, input_tokens, output_tokens, cost_micros';

function toRequest(r: Record<string, unknown>): RecentRequest {
  const n = (v: unknown) => (v === null || v === undefined ? null : String(v));
  return {
    object: 'admin.request',
    id: String(r.id),
    request_id: String(r.request_id),
    at: Number(r.at),
    key_id: n(r.key_id),
    user: n(r.user_id),
    team: n(r.team),
    route: String(r.route),
    provider: n(r.provider),
    model: n(r.model),
    status: Number(r.status),
    latency_ms: Number(r.latency_ms),
    input_tokens: Number(r.input_tokens),
    output_tokens: Number(r.output_tokens),
    cost_usd: r.cost_micros === null || r.cost_micros === undefined ? null : usdFromMicros(Number(r.cost_micros)),
  };
}

/** One model or tool call of a tool loop, under its request (gateway_usage_parts). */
export interface RequestPart {
  object: 'admin.request.part';
  /** The order the calls ended in, from 1. */
  seq: number;
  kind: 'model' | 'tool';
  /** Model calls: the provider and model; tool calls: the tool server and tool. */
  provider: string | null;
  model: string | null;
  server: string | null;
  tool: string | null;
  status: number;
  latency_ms: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: string | null;
  estimated: boolean;
  at: number;
}

/** One request with its upstream attempts and, for a tool loop, its parts (GET /v1/admin/requests/{id}). */
export interface RequestDetail extends RecentRequest {
  /** Tokens counted by the gateway (the provider gave none). */
  estimated: boolean;
  /** Each upstream attempt in order: provider, target, status, latency, error type (no bodies, no messages). */
  attempts: UsageAttempt[];
  /** A tool loop's model and tool calls, in the order they ended (none for other requests). */
  parts: RequestPart[];
}

function attemptsOfRow(r: Record<string, unknown>): UsageAttempt[] {
  if (typeof r.attempts !== 'string' || !r.attempts) return [];
  try {
    const parsed = JSON.parse(r.attempts) as unknown;
    return Array.isArray(parsed) ? (parsed as UsageAttempt[]) : [];
  } catch {
    return [];
  }
}

function toPart(r: Record<string, unknown>): RequestPart {
  const n = (v: unknown) => (v === null || v === undefined ? null : String(v));
  return {
    object: 'admin.request.part',
    seq: Number(r.seq),
    kind: r.kind === 'tool' ? 'tool' : 'model',
    provider: n(r.provider),
    model: n(r.model),
    server: n(r.server),
    tool: n(r.tool),
    status: Number(r.status),
    latency_ms: Number(r.latency_ms),
    input_tokens: Number(r.input_tokens),
    output_tokens: Number(r.output_tokens),
    cost_usd: r.cost_micros === null || r.cost_micros === undefined ? null : usdFromMicros(Number(r.cost_micros)),
    estimated: Number(r.estimated) === 1,
    at: Number(r.at),
  };
}

/**
 * GET /v1/admin/requests/{id}: one request of the ledger by its row id or its request id (the
 * x-request-id of its answer), with its attempts and parts; 404 when the ledger has none.
 */
export async function getRecentRequest(store: SqlStore, id: string): Promise<RequestDetail> {
  if (id.length < 1 || id.length > 256) throw badRequest('The request id must be 1 to 256 characters.', 'id');
  const rows = await store.query<Record<string, unknown>>(
    `SELECT ${COLUMNS}, estimated, attempts FROM gateway_usage WHERE id = ? OR request_id = ? ORDER BY at ASC, id ASC LIMIT 1`,
    [id, id],
  );
  const row = rows[0];
  if (!row) throw notFound(`No request ${id.slice(0, 64)} in the usage ledger.`);
  const parts = await store.query<Record<string, unknown>>(
    'SELECT seq, kind, provider, model, server, tool, status, latency_ms, input_tokens, output_tokens, cost_micros, estimated, at FROM gateway_usage_parts WHERE request_id = ? ORDER BY seq ASC LIMIT 1000',
    [String(row.request_id)],
  );
  return {
    ...toRequest(row),
    estimated: Number(row.estimated) === 1,
    attempts: attemptsOfRow(row),
    parts: parts.map(toPart),
  };
}

const FILTERS = { key: 'key_id', team: 'team', model: 'model', provider: 'provider' } as const;

/** The equality filters of a query (key, team, model, provider) as SQL conditions. */
function filterClauses(query: URLSearchParams, where: string[], params: unknown[]): void {
  for (const [param, column] of Object.entries(FILTERS)) {
    const value = query.get(param);
    if (value === null) continue;
    if (value.length === 0 || value.length > 256) throw badRequest(`${param} must be 1 to 256 characters.`, param);
    where.push(`${column} = ?`);
    params.push(value);
  }
}

/** Checks the stream's query (only the filters) before anything is written; the conditions to add. */
export function streamFilters(query: URLSearchParams): { where: string[]; params: unknown[] } {
  for (const name of query.keys()) if (!(name in FILTERS)) throw badRequest(`Unknown query parameter ${name.slice(0, 64)}.`, name.slice(0, 64));
  const where: string[] = [];
  const params: unknown[] = [];
  filterClauses(query, where, params);
  return { where, params };
}

/**
 * GET /v1/admin/requests: the ledger's requests newest first. `limit` (1 to 100, default 50),
 * `before` (Unix milliseconds: the page after the last one's `at`), and equality filters `key`,
 * `team`, `model`, `provider`. `has_more` says whether an older page exists.
 */
export async function listRecentRequests(store: SqlStore, query: URLSearchParams): Promise<{ object: 'list'; data: RecentRequest[]; has_more: boolean }> {
  for (const name of query.keys()) {
    if (!['limit', 'before', ...Object.keys(FILTERS)].includes(name)) throw badRequest(`Unknown query parameter ${name.slice(0, 64)}.`, name.slice(0, 64));
  }
  const limitText = query.get('limit');
  if (limitText !== null && (!/^\d{1,3}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 100))
    throw badRequest('limit must be an integer from 1 to 100.', 'limit');
  const limit = limitText === null ? 50 : Number(limitText);
  const where: string[] = [];
  const params: unknown[] = [];
  const before = query.get('before');
  if (before !== null) {
    if (!/^\d{1,16}$/.test(before)) throw badRequest('before must be a time in Unix milliseconds.', 'before');
    where.push('at < ?');
    params.push(Number(before));
  }
  filterClauses(query, where, params);
  const sql = `SELECT ${COLUMNS} FROM gateway_usage${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY at DESC, id DESC LIMIT ${limit + 1}`;
  const rows = await store.query<Record<string, unknown>>(sql, params);
  return { object: 'list', data: rows.slice(0, limit).map(toRequest), has_more: rows.length > limit };
}

/** How far back each poll of the stream looks (a long request is written to the ledger when it ends, with the time it began). */
const LOOKBACK_MS = 10 * 60_000;
const POLL_MS = 500;
const HEARTBEAT_MS = 15_000;

const open = new Set<() => void>();

/** Ends every open stream (shutdown: they would never end by themselves). */
export function endRequestStreams(): void {
  for (const end of [...open]) end();
}

/**
 * GET /v1/admin/requests/stream: server-sent events, one `request` event (data: a RecentRequest)
 * for each request the ledger records from now on (only those matching `key`, `team`, `model`, `provider` when given), polled from the store (so every instance
 * sharing it is seen), and a comment line every 15 s. Rows already in the ledger when the stream
 * opens are not sent (GET /v1/admin/requests lists them). Ends when the client goes away.
 */
export async function streamRecentRequests(store: SqlStore, req: IncomingMessage, res: ServerResponse, filters: { where: string[]; params: unknown[] }): Promise<void> {
  const seen = new Set<string>();
  const sql = `SELECT ${COLUMNS} FROM gateway_usage WHERE ${['at >= ?', ...filters.where].join(' AND ')} ORDER BY at DESC, id DESC LIMIT 500`;
  const poll = async (emit: boolean) => {
    const rows = await store.query<Record<string, unknown>>(sql, [Date.now() - LOOKBACK_MS, ...filters.params]);
    const fresh = rows.filter((r) => !seen.has(String(r.id))).reverse();
    for (const row of fresh) {
      seen.add(String(row.id));
      if (emit) res.write(`event: request\ndata: ${JSON.stringify(toRequest(row))}\n\n`);
    }
    // Bounded: the oldest ids leave once the window holds more than the query can return.
    if (seen.size > 5000) for (const id of [...seen].slice(0, seen.size - 5000)) seen.delete(id);
  };
  await poll(false);
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
  res.write('retry: 2000\n: connected\n\n');
  let polling = false;
  let beat = Date.now();
  const timer = setInterval(() => {
    if (polling) return;
    polling = true;
    poll(true)
      .then(() => {
        if (Date.now() - beat >= HEARTBEAT_MS) {
          beat = Date.now();
          res.write(': heartbeat\n\n');
        }
      })
      .catch(() => res.write(': the ledger could not be read\n\n'))
      .finally(() => (polling = false));
  }, POLL_MS);
  timer.unref();
  const end = () => {
    clearInterval(timer);
    open.delete(end);
    if (!res.writableEnded) res.end();
  };
  open.add(end);
  req.once('close', end);
  res.once('close', end);
}
