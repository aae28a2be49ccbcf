import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake token endpoint received. */
export interface SeenTokenRequest {
  grant: string;
  user?: string;
  refreshToken?: string;
  clientAuth: string | undefined;
}

interface Code {
  user: string;
  challenge: string;
  redirectUri: string;
  clientId: string;
}

/**
 * A tool server's own OAuth 2.1 authorization server, for the per_user_oauth tests: GET
 * /authorize signs in the user named by the `upstream-user` cookie (the fake's browser session)
 * and sends the browser to redirect_uri with a single-use code (PKCE S256 required); POST /token
 * checks the client (Basic), the code's verifier and redirect_uri, and answers tokens that name
 * the user (`at-<user>-<n>-<random>`), with rotating refresh tokens (an old one is refused with
 * invalid_grant). `expiresIn` says each user's access token lifetime (by grant).
 */
export class FakeToolOAuth {
  readonly seen: SeenTokenRequest[] = [];
  /** Every access token issued, by user. */
  readonly issued = new Map<string, string[]>();
  private readonly codes = new Map<string, Code>();
  private readonly refresh = new Map<string, string>();
  private http?: HttpServer;
  private n = 0;
  url = '';
  /** What its RFC 8414 metadata says of PKCE. */
  pkceMethods = ['S256'];

  constructor(
    private readonly client: { id: string; secret: string },
    readonly expiresIn: (user: string, grant: string) => number = () => 3600,
  ) {}

  get authorizationEndpoint(): string {
    return `${this.url}/authorize`;
  }

  get tokenEndpoint(): string {
    return `${this.url}/token`;
  }

  async start(): Promise<this> {
    this.http = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString('utf8')));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', this.url);
        const json = (status: number, body: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(body));
        };
        if (req.method === 'GET' && url.pathname === '/.well-known/oauth-authorization-server') {
          return json(200, {
            issuer: this.url,
            authorization_endpoint: this.authorizationEndpoint,
            token_endpoint: this.tokenEndpoint,
            response_types_supported: ['code'],
            code_challenge_methods_supported: this.pkceMethods,
          });
        }
        if (req.method === 'GET' && url.pathname === '/authorize') {
          const user = /upstream-user=([a-z]+)/.exec(req.headers.cookie ?? '')?.[1];
          const q = url.searchParams;
          if (!user) return json(401, { error: 'login_required' });
          if (q.get('response_type') !== 'code' || q.get('client_id') !== this.client.id || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge'))
            return json(400, { error: 'invalid_request' });
          const code = randomBytes(16).toString('hex');
          this.codes.set(code, { user, challenge: q.get('code_challenge')!, redirectUri: q.get('redirect_uri')!, clientId: q.get('client_id')! });
          const back = new URL(q.get('redirect_uri')!);
          back.searchParams.set('code', code);
          back.searchParams.set('state', q.get('state') ?? '');
          res.writeHead(302, { location: back.toString() });
          return res.end();
        }
        if (req.method === 'POST' && url.pathname === '/token') {
          const form = new URLSearchParams(text);
          const grant = form.get('grant_type') ?? '';
          const seen: SeenTokenRequest = { grant, clientAuth: req.headers.authorization };
          this.seen.push(seen);
          if (req.headers.authorization !== `Basic ${Buffer.from(`${this.client.id}:${this.client.secret}`).toString('base64')}`) return json(401, { error: 'invalid_client' });
          let user: string | undefined;
          if (grant === 'authorization_code') {
            const code = this.codes.get(form.get('code') ?? '');
            this.codes.delete(form.get('code') ?? '');
            const verifier = form.get('code_verifier') ?? '';
            if (!code || code.redirectUri !== form.get('redirect_uri') || createHash('sha256').update(verifier).digest('base64url') !== code.challenge)
              return json(400, { error: 'invalid_grant' });
            user = code.user;
          } else if (grant === 'refresh_token') {
            seen.refreshToken = form.get('refresh_token') ?? '';
            user = this.refresh.get(seen.refreshToken);
            this.refresh.delete(seen.refreshToken);
            if (!user) return json(400, { error: 'invalid_grant' });
          } else return json(400, { error: 'unsupported_grant_type' });
          seen.user = user;
          const n = ++this.n;
          const access = `at-${user}-${n}-${randomBytes(12).toString('hex')}`;
          const refresh = `rt-${user}-${n}-${randomBytes(12).toString('hex')}`;
          this.refresh.set(refresh, user);
          this.issued.set(user, [...(this.issued.get(user) ?? []), access]);
          return json(200, { access_token: access, refresh_token: refresh, token_type: 'Bearer', expires_in: this.expiresIn(user, grant), scope: 'tools' });
        }
        json(404, { error: 'not_found' });
      });
    });
    await new Promise<void>((resolve) => this.http!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.http.address() as AddressInfo).port}`;
    return this;
  }

  /** Revokes every refresh token of `user` (their grant is gone). */
  revoke(user: string): void {
    for (const [token, owner] of this.refresh) if (owner === user) this.refresh.delete(token);
  }

  /** The refresh tokens still valid (issued and not yet used). */
  liveRefreshTokens(): string[] {
    return [...this.refresh.keys()];
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.http ? this.http.close(() => resolve()) : resolve()));
  }
}

/**
 * The browser back at the gateway's callback: the consent page (GET) names the gateway account,
 * and its Connect (or Cancel) button posts the form back. Answers the page and the POST's answer.
 */
export async function consentAndConnect(callback: string, action: 'connect' | 'cancel' = 'connect'): Promise<{ page: string; status: number; body: string }> {
  const shown = await fetch(callback, { redirect: 'manual' });
  const page = await shown.text();
  if (shown.status !== 200) return { page, status: shown.status, body: page };
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1]?.replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c)));
  const form = new URLSearchParams({ code: field('code') ?? '', state: field('state') ?? '', action });
  const posted = await fetch(new URL('/oauth/upstream/callback', callback), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  const text = await posted.text();
  return { page, status: posted.status, body: text };
}
