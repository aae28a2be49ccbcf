import { Agent, request } from 'undici';
import { randomBytes } from 'node:crypto';
import { LruMap } from '../../../kernel/lru.js';
import { guardedLookup, literalHostAllowed } from '../../../kernel/upstream/address-guard.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import type { OAuthServerStore } from './as-store.js';
import { OAuthError } from './oauth-error.js';

/** A client as the authorization server knows it. */
export interface OAuthClient {
  clientId: string;
  clientName?: string;
  clientUri?: string;
  redirectUris: string[];
  /** Where the client came from: a fetched metadata document, or dynamic registration. */
  source: 'metadata-document' | 'registration';
}

/** Why a client id names no usable client (answered as a 400 before anything is redirected). */
export class ClientRejection extends Error {}

const MAX_DOCUMENT_BYTES = 16 * 1024;
const FETCH_TIMEOUT_MS = 5_000;
const MAX_REDIRECT_URIS = 20;
const MAX_CACHED = 1_000;

const isLoopbackHost = (host: string) => host === 'localhost' || host === '127.0.0.1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);

/**
 * A redirect URI a client may register: an absolute URL without a fragment, https://, http://
 * on a loopback host (native apps, RFC 8252), or a private-use scheme (com.example.app:/cb).
 */
export function redirectUriProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 2000) return 'each redirect URI must be a string of at most 2000 characters';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${value} is not an absolute URL`;
  }
  if (url.hash || value.includes('#')) return `${value} has a fragment`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') return isLoopbackHost(url.hostname) ? undefined : `${value} is http:// on a host that is not loopback (use https://)`;
  if (/^(javascript|data|file|vbscript|blob):$/i.test(url.protocol)) return `${value} has a scheme that cannot be a redirect URI`;
  return /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/i.test(url.protocol) ? undefined : `${value}: a private-use scheme must be a reverse domain name (com.example.app:)`;
}

function stringField(doc: Record<string, unknown>, name: string): string | undefined {
  const v = doc[name];
  return typeof v === 'string' && v.trim() ? v.trim().slice(0, 200) : undefined;
}

/**
 * The clients of the authorization server: client id metadata documents (the client id is an
 * https:// URL whose document is fetched under the outbound-address rule and cached), and
 * clients registered through RFC 7591 (kept in the store).
 */
export class OAuthClients {
  private readonly cache = new LruMap<string, { client: OAuthClient; until: number }>(MAX_CACHED);
  private readonly agent: Agent;

  constructor(
    private readonly store: OAuthServerStore,
    private readonly ttlSeconds: number,
    private readonly allowInsecure: boolean,
    private readonly logger: Logger,
  ) {
    this.agent = new Agent({ connect: { lookup: guardedLookup(allowInsecure), timeout: FETCH_TIMEOUT_MS }, headersTimeout: FETCH_TIMEOUT_MS, bodyTimeout: FETCH_TIMEOUT_MS });
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  /** Whether a client id is a metadata document URL (anything else is a registered client's id). */
  static isMetadataUrl(clientId: string): boolean {
    return /^https?:\/\//i.test(clientId);
  }

  async resolve(clientId: string): Promise<OAuthClient> {
    if (OAuthClients.isMetadataUrl(clientId)) return this.fromDocument(clientId);
    const metadata = await this.store.client(clientId);
    if (!metadata) throw new ClientRejection('The client_id names no registered client and is not a client id metadata document URL.');
    return {
      clientId,
      clientName: stringField(metadata, 'client_name'),
      clientUri: stringField(metadata, 'client_uri'),
      redirectUris: metadata.redirect_uris as string[],
      source: 'registration',
    };
  }

  private async fromDocument(clientId: string): Promise<OAuthClient> {
    const cached = this.cache.get(clientId);
    if (cached && cached.until > Date.now()) return cached.client;
    let url: URL;
    try {
      url = new URL(clientId);
    } catch {
      throw new ClientRejection('The client_id is not a valid URL.');
    }
    if (url.protocol !== 'https:' && !(this.allowInsecure && url.protocol === 'http:')) throw new ClientRejection('A client id metadata document URL must be https://.');
    if (url.pathname === '/' || url.hash || url.username || url.password)
      throw new ClientRejection('A client id metadata document URL needs a path, and no fragment or credentials.');
    if (!literalHostAllowed(url, this.allowInsecure)) throw new ClientRejection('The client id metadata document URL points at an address that is not public.');
    const doc = await this.fetchDocument(url);
    if (doc.client_id !== clientId) throw new ClientRejection("The client id metadata document's client_id is not the URL it was fetched from.");
    const uris = doc.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS) throw new ClientRejection('The client id metadata document must list 1 to 20 redirect_uris.');
    for (const uri of uris) {
      const problem = redirectUriProblem(uri);
      if (problem) throw new ClientRejection(`The client id metadata document's redirect_uris: ${problem}.`);
    }
    const method = doc.token_endpoint_auth_method;
    if (method !== undefined && method !== 'none') throw new ClientRejection('A client id metadata document client must use token_endpoint_auth_method none (no shared secret).');
    const client: OAuthClient = {
      clientId,
      clientName: stringField(doc, 'client_name'),
      clientUri: stringField(doc, 'client_uri'),
      redirectUris: uris as string[],
      source: 'metadata-document',
    };
    this.cache.set(clientId, { client, until: Date.now() + this.ttlSeconds * 1000 });
    return client;
  }

  private async fetchDocument(url: URL): Promise<Record<string, unknown>> {
    let res;
    try {
      res = await request(url, { method: 'GET', dispatcher: this.agent, headers: { accept: 'application/json' } });
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'ERR_BLOCKED_ADDRESS') throw new ClientRejection('The client id metadata document URL resolves to an address that is not public.');
      this.logger.warn({ clientId: url.href, err: (err as Error).message }, 'could not fetch a client id metadata document');
      throw new ClientRejection('The client id metadata document could not be fetched.');
    }
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new ClientRejection(`The client id metadata document answered ${res.statusCode}.`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_DOCUMENT_BYTES) {
        res.body.destroy();
        throw new ClientRejection(`The client id metadata document is larger than ${MAX_DOCUMENT_BYTES} bytes.`);
      }
      chunks.push(chunk as Buffer);
    }
    let doc: unknown;
    try {
      doc = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      throw new ClientRejection('The client id metadata document is not JSON.');
    }
    if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new ClientRejection('The client id metadata document is not a JSON object.');
    return doc as Record<string, unknown>;
  }

  /** RFC 7591 registration of a public client; answers the client information response. */
  async register(body: unknown, now: number): Promise<Record<string, unknown>> {
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new OAuthError('invalid_client_metadata', 'The registration request must be a JSON object.');
    const req = body as Record<string, unknown>;
    const uris = req.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS)
      throw new OAuthError('invalid_redirect_uri', 'redirect_uris must list 1 to 20 redirect URIs.');
    for (const uri of uris) {
      const problem = redirectUriProblem(uri);
      if (problem) throw new OAuthError('invalid_redirect_uri', problem);
    }
    const method = req.token_endpoint_auth_method ?? 'none';
    if (method !== 'none') throw new OAuthError('invalid_client_metadata', 'Only public clients are registered: token_endpoint_auth_method must be none (PKCE protects the code).');
    const grants = req.grant_types ?? ['authorization_code', 'refresh_token'];
    if (!Array.isArray(grants) || grants.some((g) => g !== 'authorization_code' && g !== 'refresh_token')) {
      throw new OAuthError('invalid_client_metadata', 'grant_types may hold authorization_code and refresh_token only.');
    }
    const responses = req.response_types ?? ['code'];
    if (!Array.isArray(responses) || responses.some((r) => r !== 'code')) throw new OAuthError('invalid_client_metadata', 'response_types may hold code only.');
    for (const name of ['client_name', 'client_uri', 'scope', 'software_id', 'software_version']) {
      if (req[name] !== undefined && (typeof req[name] !== 'string' || (req[name] as string).length > 500)) {
        throw new OAuthError('invalid_client_metadata', `${name} must be a string of at most 500 characters.`);
      }
    }
    const metadata: Record<string, unknown> = {
      redirect_uris: uris,
      token_endpoint_auth_method: 'none',
      grant_types: grants,
      response_types: responses,
    };
    for (const name of ['client_name', 'client_uri', 'scope', 'software_id', 'software_version']) if (req[name] !== undefined) metadata[name] = req[name];
    const clientId = `gwc_${randomBytes(16).toString('base64url')}`;
    await this.store.registerClient(clientId, metadata, now);
    return { client_id: clientId, client_id_issued_at: now, ...metadata };
  }
}
