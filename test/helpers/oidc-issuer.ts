import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload, type CryptoKey } from 'jose';

export interface MintOptions {
  audience?: string | string[];
  issuer?: string;
  /** Seconds from now; negative for an expired token. */
  expiresIn?: number;
  scope?: string;
  /** Sign with a key the issuer does not publish. */
  unknownKey?: boolean;
  claims?: JWTPayload;
  subject?: string;
}

/**
 * A fake OpenID Connect issuer on a free loopback port: the discovery document and a JWKS with
 * one RS256 key; `mint` signs access tokens (or with a key it does not publish).
 */
export class FakeOidcIssuer {
  url = '';
  /** Logins it made (authorize requests answered), and code exchanges refused. */
  logins = 0;
  refusedExchanges = 0;
  /** The user /authorize logs in (no page: it answers at once), and the client it knows. */
  user: { sub: string; claims: JWTPayload } = { sub: 'oidc-user-1', claims: { email: 'olga@example.com', name: 'Olga' } };
  client = { id: 'gateway-client', secret: 'gateway-client-secret' };
  private readonly codes = new Map<string, { nonce: string; challenge: string; redirectUri: string }>();
  discoveryHits = 0;
  jwksHits = 0;
  private server?: Server;
  private key?: { privateKey: CryptoKey; publicKey: CryptoKey };
  private foreign?: { privateKey: CryptoKey; publicKey: CryptoKey };

  async start(): Promise<this> {
    this.key = await generateKeyPair('RS256');
    this.foreign = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(this.key.publicKey)), kid: 'key-1', alg: 'RS256', use: 'sig' };
    this.server = createServer((req, res) => {
      if (req.url === '/.well-known/openid-configuration') {
        this.discoveryHits++;
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ issuer: this.url, jwks_uri: `${this.url}/jwks`, authorization_endpoint: `${this.url}/authorize`, token_endpoint: `${this.url}/token` }));
      } else if (req.url === '/jwks') {
        this.jwksHits++;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
      } else if (req.url?.startsWith('/authorize?')) {
        const q = new URL(req.url, this.url).searchParams;
        if (q.get('client_id') !== this.client.id || q.get('code_challenge_method') !== 'S256') return void res.writeHead(400).end();
        const code = randomBytes(16).toString('hex');
        this.codes.set(code, { nonce: q.get('nonce') ?? '', challenge: q.get('code_challenge') ?? '', redirectUri: q.get('redirect_uri') ?? '' });
        this.logins++;
        const back = new URL(q.get('redirect_uri')!);
        back.searchParams.set('code', code);
        back.searchParams.set('state', q.get('state') ?? '');
        res.writeHead(302, { location: back.href }).end();
      } else if (req.url === '/token' && req.method === 'POST') {
        void this.exchange(req).then(
          (body) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
          () => {
            this.refusedExchanges++;
            res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_grant' }));
          },
        );
      } else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async mint(options: MintOptions = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const jwt = new SignJWT({ ...(options.scope !== undefined ? { scope: options.scope } : {}), ...options.claims })
      .setProtectedHeader({ alg: 'RS256', kid: options.unknownKey ? 'key-unknown' : 'key-1', typ: 'at+jwt' })
      .setIssuer(options.issuer ?? this.url)
      .setSubject(options.subject ?? 'user-123')
      .setIssuedAt(now - 60)
      .setExpirationTime(now + (options.expiresIn ?? 600));
    if (options.audience !== undefined) jwt.setAudience(options.audience);
    return jwt.sign(options.unknownKey ? this.foreign!.privateKey : this.key!.privateKey);
  }

  /** The token endpoint: client authentication (Basic), the code, PKCE; answers an id_token for the login's nonce. */
  private async exchange(req: IncomingMessage): Promise<Record<string, unknown>> {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const form = new URLSearchParams(raw);
    const basic = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
    if (basic !== `${this.client.id}:${this.client.secret}`) throw new Error('client');
    const login = this.codes.get(form.get('code') ?? '');
    this.codes.delete(form.get('code') ?? '');
    if (!login || login.redirectUri !== form.get('redirect_uri')) throw new Error('code');
    if (
      createHash('sha256')
        .update(form.get('code_verifier') ?? '')
        .digest('base64url') !== login.challenge
    )
      throw new Error('pkce');
    const now = Math.floor(Date.now() / 1000);
    const idToken = await new SignJWT({ ...this.user.claims, nonce: login.nonce })
      .setProtectedHeader({ alg: 'RS256', kid: 'key-1' })
      .setIssuer(this.url)
      .setSubject(this.user.sub)
      .setAudience(this.client.id)
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(this.key!.privateKey);
    return { access_token: randomBytes(16).toString('hex'), token_type: 'Bearer', id_token: idToken, expires_in: 300 };
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}
