import { parseSse } from '../../../contract/sse/sse-parser.js';
import type { RemoteServer } from '../upstream/remote-server.js';
import { abortSignalOf, exchange, type ExchangeAnswer, type ExchangeSignal } from './upstream-exchange.js';

/** How many renewals an instance remembers (the oldest is forgotten first: its client, if it still sends the old id, renews again). */
const REMEMBERED = 10_000;
/** The id of the initialize the gateway sends for a client (its answer goes to no client). */
const INITIALIZE_ID = 'gateway-session-renewal';
/** Headers of the client's request that do not belong to a new session's opening. */
const NOT_AT_OPENING = ['mcp-session-id', 'mcp-protocol-version', 'last-event-id'];

/**
 * New sessions with a remote tool server for the relayed client sessions of /mcp/<server> that
 * the server forgot (it restarted, and answers 404 for their ids). As the gateway opens a new
 * shared session with a server that forgot its own (see UpstreamServer.request), a client's
 * request that finds its session forgotten gets a new one (opened with the initialize the client
 * sent for the first, which its session id keeps) and goes once more on it; the client gets the
 * new session's id with the answer. One renewal per forgotten session, however many of its
 * requests find it so at once; a client that keeps sending the old id (it did not take the new
 * one) is served on the new session by this instance, not given another one per request.
 */
export class SessionRenewals {
  /** A forgotten session (server, owner, its id there) -> the renewal that replaced it (the new id; undefined when none was had). */
  private readonly renewals = new Map<string, Promise<string | undefined>>();

  /** The session that replaced `upstream` (a renewal done or under way); undefined when none did. */
  replaced(server: string, owner: string, upstream: string): Promise<string | undefined> | undefined {
    return this.renewals.size ? this.renewals.get(keyOf(server, owner, upstream)) : undefined;
  }

  /**
   * A new session for the client session whose id with `server` the client sent as `sent` and the
   * server forgot as `forgotten` (another than `sent` when that one was renewed already): the
   * renewal under way or done for `forgotten`, else `open` (which opens one). Resolves with its
   * id there, or undefined when none could be had.
   */
  renew(server: string, owner: string, sent: string, forgotten: string, open: () => Promise<string | undefined>): Promise<string | undefined> {
    const key = keyOf(server, owner, forgotten);
    const known = this.renewals.get(key);
    if (known) return known;
    const renewal = open().catch(() => undefined);
    const keys = sent === forgotten ? [key] : [key, keyOf(server, owner, sent)];
    for (const k of keys) {
      this.renewals.delete(k);
      this.renewals.set(k, renewal);
    }
    while (this.renewals.size > REMEMBERED) this.renewals.delete(this.renewals.keys().next().value!);
    void renewal.then((id) => {
      // None was had: a later request tries again.
      if (id === undefined) for (const k of keys) if (this.renewals.get(k) === renewal) this.renewals.delete(k);
    });
    return renewal;
  }
}

function keyOf(server: string, owner: string, upstream: string): string {
  return `${server}\n${owner}\n${upstream}`;
}

/**
 * Opens a session with the server as its client opened the first: initialize with `params` (what
 * the client's initialize said), then notifications/initialized, with `headers` (what the
 * client's requests carry there: the configured ones, the caller's identity, the server's
 * token). Bounded as the gateway's own connections' opening is. Resolves with the session's id
 * there, or undefined when the server opened none.
 */
export async function openSession(server: RemoteServer, headers: Record<string, string>, params: Record<string, unknown>, caller: ExchangeSignal): Promise<string | undefined> {
  const signal = AbortSignal.any([abortSignalOf(caller), AbortSignal.timeout(Math.min(server.timeoutMs, 30_000))]);
  const sent: Record<string, string> = { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  for (const name of NOT_AT_OPENING) delete sent[name];
  const post = (body: unknown, extra: Record<string, string> = {}) =>
    exchange(server.agent, {
      origin: server.origin,
      path: server.path,
      method: 'POST',
      headers: { ...sent, ...extra },
      body: Buffer.from(JSON.stringify(body)),
      headersTimeout: server.timeoutMs,
      signal,
    });
  const opened = await post({ jsonrpc: '2.0', id: INITIALIZE_ID, method: 'initialize', params });
  const session = opened.headers['mcp-session-id'];
  const result = await initializeResult(opened);
  if (opened.status >= 300 || typeof session !== 'string' || !session || typeof result?.protocolVersion !== 'string') return undefined;
  const initialized = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': session, 'mcp-protocol-version': result.protocolVersion });
  initialized.stream?.destroy();
  return initialized.status < 300 ? session : undefined;
}

/** The result of the server's answer to the gateway's initialize (a whole JSON answer, or on an event stream). */
async function initializeResult(answer: ExchangeAnswer): Promise<Record<string, unknown> | undefined> {
  const stream = answer.stream;
  if (!stream) return answer.broken || !answer.body ? undefined : resultIn(answer.body.toString('utf8'));
  try {
    for await (const event of parseSse(stream)) {
      const result = resultIn(event.data);
      if (result) return result;
    }
    return undefined;
  } finally {
    stream.destroy();
  }
}

function resultIn(text: string): Record<string, unknown> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  for (const m of (Array.isArray(parsed) ? parsed : [parsed]) as Array<Record<string, unknown> | null>) {
    if (m && m.id === INITIALIZE_ID && m.result && typeof m.result === 'object') return m.result as Record<string, unknown>;
  }
  return undefined;
}
