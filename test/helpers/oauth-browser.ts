import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

/** One answer as a browser sees it (redirects not followed). */
export interface Page {
  status: number;
  location?: string;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * Plays the browser in an OAuth flow: GETs and form POSTs with undici, a cookie jar, no
 * redirect followed (the test reads Location), and the hidden fields of the last page.
 */
export class FormBrowser {
  private readonly cookies = new Map<string, string>();

  async get(url: string): Promise<Page> {
    return this.send(url, 'GET');
  }

  async post(url: string, form: Record<string, string>): Promise<Page> {
    return this.send(url, 'POST', new URLSearchParams(form).toString());
  }

  forget(): void {
    this.cookies.clear();
  }

  private async send(url: string, method: 'GET' | 'POST', body?: string): Promise<Page> {
    const headers: Record<string, string> = {};
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await request(url, { method, headers, body });
    const text = await res.body.text();
    const set = res.headers['set-cookie'];
    for (const line of Array.isArray(set) ? set : set ? [set] : []) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (/Max-Age=0/i.test(line) || !value) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const location = res.headers.location;
    return { status: res.statusCode, location: typeof location === 'string' ? location : undefined, headers: res.headers, text };
  }
}

/** The hidden inputs of an HTML page (name -> value, entities decoded). */
export function hiddenFields(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    out[m[1]!] = m[2]!
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  }
  return out;
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/**
 * A client id metadata document served on a loopback port (http: the gateway must allow insecure
 * metadata URLs to fetch it): `client_id` is its own URL. `hits` counts fetches.
 */
export class MetadataDocumentHost {
  url = '';
  hits = 0;
  private server?: Server;
  /** What the document says besides client_id (override per test). */
  document: (url: string) => Record<string, unknown> = () => ({});

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      if (req.url !== '/client.json' && req.url !== '/other.json') return void res.writeHead(404).end();
      this.hits++;
      const self = `${this.url}${req.url}`;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ client_id: self, ...this.document(self) }));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}
