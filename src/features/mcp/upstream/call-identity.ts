import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

type Headers = Record<string, string>;

/** The call being handed to a transport: its headers, and how its tag is taken off once it is answered. */
interface Handing {
  headers: Headers;
  release?: () => void;
}

/**
 * Carries each caller's identity headers to the HTTP requests of their own call on an MCP
 * session several callers share, without an AsyncLocalStorage (on Node 20 entering one turns on
 * promise hooks for the whole process, for good: every promise of every route pays from then on).
 *
 * It relies on the SDK handing a request to its transport synchronously: `Protocol.request`
 * calls `transport.send(message)` inside the promise executor, before it returns. So `run` sets
 * the caller's headers, calls the client, and takes them back; the transport's `send` (wrapped by
 * `tag`) finds them there and tags the message's JSON-RPC id with them. The transport's fetch,
 * called later, reads the id back from the body it sends (`headersOf`). The tag stays until the
 * call is answered, so the call's cancellation (`notifications/cancelled` naming its id) carries
 * them too.
 */
export class CallIdentity {
  private handing: Handing | undefined;

  /** Runs `fn`, which sends one request through a tagged transport before it returns, with `headers` on that request's HTTP requests. */
  run<T>(headers: Headers, fn: () => Promise<T>): Promise<T> {
    const handing: Handing = { headers };
    this.handing = handing;
    let result: Promise<T>;
    try {
      result = fn();
    } finally {
      this.handing = undefined;
    }
    const release = handing.release;
    return release ? result.finally(release) : result;
  }

  /**
   * Wraps the transport's `send`: a request sent while a call is being handed is tagged with the
   * call's headers in `tags` (keyed by its id as JSON), until the call is answered.
   */
  tag(transport: Transport, tags: Map<string, Headers>): void {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      const handing = this.handing;
      if (handing && 'id' in message && 'method' in message) {
        this.handing = undefined;
        const key = JSON.stringify(message.id);
        tags.set(key, handing.headers);
        handing.release = () => tags.delete(key);
      }
      return send(message, options);
    };
  }
}

/**
 * The headers a tagged call put on the POST a transport is about to send: found by the body's
 * JSON-RPC id, or for a cancellation by the id it cancels. Undefined for anything else (a GET,
 * a DELETE, a message of no tagged call).
 */
export function headersOf(init: RequestInit | undefined, tags: Map<string, Headers>): Headers | undefined {
  if (tags.size === 0 || typeof init?.body !== 'string') return undefined;
  let message: { id?: unknown; method?: unknown; params?: { requestId?: unknown } };
  try {
    message = JSON.parse(init.body) as typeof message;
  } catch {
    return undefined;
  }
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return undefined;
  const id = message.method === 'notifications/cancelled' ? message.params?.requestId : message.id;
  return id === undefined ? undefined : tags.get(JSON.stringify(id));
}
