import { createServer, type Server } from 'node:http';
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

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}
