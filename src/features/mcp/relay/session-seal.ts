import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** What a relayed session's id carries: enough for any instance to serve it. */
export interface SealedSession {
  /** The tool server (the /mcp/<server> it was opened on). */
  s: string;
  /** The credential that opened it (`kind:id`); only it may use the session. */
  o: string;
  /** A process session (/mcp/<server> of a process server), or an input round: the bus address of the instance running it. */
  b?: string;
  /** An input round (a 2026-07-28 `requestState`, see input-rounds.ts; `s` is its method and target, space-separated): its request's method. */
  m?: string;
  /** The tool server's own session id, when it keeps sessions. */
  u?: string;
  /**
   * A relayed session of a remote server (/mcp/<server>): the params of the client's initialize,
   * with which a new session is opened when the server forgot this one (see session-renewals.ts).
   */
  n?: Record<string, unknown>;
  /** A session of the gateway's own (/mcp, or /mcp/<server> of a stateless server): what its initialize said. */
  g?: {
    /** The /mcp/<server> it was opened on (absent: /mcp). */
    p?: string;
    /** The client's capabilities and name. */
    c: Record<string, unknown>;
    i?: Record<string, unknown>;
    /** When it was opened (Unix seconds): ids are good for SESSION_MAX_AGE_S. */
    t?: number;
  };
}

const PREFIX = 'r.';
/** The longest session id opened (a longer one is refused unread). */
export const MAX_SESSION_ID = 4096;
const IV = 12;
const TAG = 16;

/**
 * Session ids of relayed sessions: the session's state sealed (AES-256-GCM) under a key every
 * instance shares (kept in the shared store, see session-key.ts), so any instance serves a
 * session another opened, and nobody can read or forge one. Opaque to the client.
 */
export class SessionSeal {
  private key: Buffer;

  constructor(key: Buffer) {
    this.key = SessionSeal.checked(key);
  }

  /** Switches to the key every instance shares (read from the shared store at start). */
  useKey(key: Buffer): void {
    this.key = SessionSeal.checked(key);
  }

  private static checked(key: Buffer): Buffer {
    if (key.length !== 32) throw new Error('a session key is 32 bytes');
    return key;
  }

  static isSealed(id: string): boolean {
    return id.startsWith(PREFIX);
  }

  seal(session: SealedSession): string {
    const iv = randomBytes(IV);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(session), 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** The session an id carries; undefined for anything not sealed by this key. */
  open(id: string): SealedSession | undefined {
    if (!id.startsWith(PREFIX) || id.length > MAX_SESSION_ID) return undefined;
    const raw = Buffer.from(id.slice(PREFIX.length), 'base64url');
    if (raw.length < IV + TAG + 2) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV));
      decipher.setAuthTag(raw.subarray(raw.length - TAG));
      const text = Buffer.concat([decipher.update(raw.subarray(IV, raw.length - TAG)), decipher.final()]).toString('utf8');
      const value = JSON.parse(text) as SealedSession;
      return typeof value.s === 'string' && typeof value.o === 'string' ? value : undefined;
    } catch {
      return undefined;
    }
  }
}
