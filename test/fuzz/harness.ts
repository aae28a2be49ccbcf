import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { Agent, request } from 'undici';
import fc from 'fast-check';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { ERROR_CATALOGUE } from '../../src/contract/errors/catalogue.js';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The fuzz suite's world: a gateway started with every provider pointed at one echoing fake
 * upstream, tool servers that give away their credentials, an admin token, and secrets of
 * every kind configured. Each generated request is sent, and its answer checked: a success,
 * or the contract's error body with the status its code has; no secret in it (in any
 * escaping); and /health still 200.
 *
 * Runs: FUZZ_RUNS (cases per property, default a few hundred so that `npm test` runs a few
 * thousand in all), FUZZ_SEED (default fixed, so a failure is reproducible). `npm run fuzz`
 * runs the same properties with many more cases.
 */
export const SEED = Number(process.env.FUZZ_SEED ?? 20260915);
export const scaled = (base: number) => Math.max(1, Math.round(base * Number(process.env.FUZZ_SCALE ?? 1)));
export const RUNS = (base: number) => (process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : scaled(base));

/** Secrets the gateway is configured with. */
export const CONFIGURED = {
  admin: 'fuzz-admin-token-0123456789abcdef0123456789',
  providerHeader: 'org-fuzz-header-secret-1a2b',
  groqKey: 'gsk-fuzz-configured-key-3c4d',
  toolBearer: 'tool-bearer-fuzz-5e6f7a8b',
  toolKey: 'tk9#',
  toolEnv: 'env-fuzz-"secret"\\value',
  signing: 'signing-fuzz-secret-0123456789abcd',
  apiKeyCredential: 'cfg-fuzz-api-key-9876543210',
};

/** Credentials the fuzz sends as a caller: realistic, and awkward to escape. */
export const CALLER_SECRETS = [
  'sk-fuzz-caller-key-000001',
  'sk-fuzz "quoted" \\ key/2+2=4 %41',
  'sk-fuzz-ünïcode-κλειδί-03',
  'AKIAFUZZACCESSKEY04',
  'fuzz/aws+secret=access key 05',
  'gwt_not-a-real-gateway-token-06',
];

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Every spelling of a value that must not appear in an answer. */
export function spellings(value: string): string[] {
  const json = JSON.stringify(value).slice(1, -1);
  const out = new Set([value, json, JSON.stringify(json).slice(1, -1)]);
  try {
    out.add(encodeURIComponent(value));
  } catch {
    /* lone surrogate */
  }
  return [...out].filter((s) => s.length >= 4);
}

/**
 * An upstream that answers every request by echoing what it was sent (its credentials first),
 * in a shape chosen by the request: JSON, an SSE stream (whole or cut), an error status, plain
 * text or garbage. Whatever the gateway makes of it, no credential may reach the caller.
 */
export class EchoUpstream {
  private server?: Server;
  url = '';
  requests = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.answer(req, res));
    this.server.keepAliveTimeout = 1000;
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.requests++;
    let size = 0;
    const head: Buffer[] = [];
    try {
      for await (const c of req) {
        size += (c as Buffer).length;
        if (size < 8192) head.push(c as Buffer);
      }
    } catch {
      return;
    }
    const body = Buffer.concat(head).toString('utf8');
    const creds = ['authorization', 'api-key', 'x-api-key', 'x-goog-api-key', 'openai-organization', 'x-amz-security-token']
      .map((h) => `${h}=${String(req.headers[h] ?? '')}`)
      .join(' ');
    const echo = `${creds} enc=${encodeURIComponent(String(req.headers.authorization ?? ''))} url=${req.url} body=${body.slice(0, 400)}`;
    let hash = 0;
    for (const ch of `${req.url}${body}`) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
    const mode = hash % 7;
    if (res.destroyed) return;
    if (/"stream"\s*:\s*true/.test(body) && mode < 4) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (content: string) =>
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
      res.write(chunk(echo));
      res.write(chunk(JSON.stringify(req.headers)));
      if (mode === 3) res.destroy();
      else res.end('data: [DONE]\n\n');
      return;
    }
    switch (mode) {
      case 0:
      case 1:
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'x',
            object: 'chat.completion',
            created: 1,
            model: 'm',
            data: [],
            text: echo,
            choices: [{ index: 0, message: { role: 'assistant', content: echo }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
            headers: req.headers,
          }),
        );
        return;
      case 2:
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: echo, type: 'invalid_request_error', param: null, code: null } }));
        return;
      case 3:
        res.writeHead(500 + (hash % 4), { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: echo, headers: req.headers } }));
        return;
      case 4:
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(echo);
        return;
      case 5:
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${String(req.headers.authorization)}` } }));
        return;
      default:
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`{"not json ${echo}`);
    }
  }
}

const PROVIDERS = [
  'openai',
  'azure-openai',
  'anthropic',
  'google',
  'vertex-ai',
  'bedrock',
  'cohere',
  'mistral-ai',
  'groq',
  'together-ai',
  'fireworks-ai',
  'deepseek',
  'x-ai',
  'perplexity-ai',
  'openrouter',
  'ollama',
  'vllm',
];
export const PROVIDER_IDS = PROVIDERS;

export interface FuzzWorld {
  gw: TestGateway;
  upstream: EchoUpstream;
  base: string;
  port: number;
  dispatcher: Agent;
  close(): Promise<void>;
}

/** The gateway under fuzz: every provider on the echo upstream, tool servers, bearer auth on /mcp. */
export async function startFuzzWorld(extra: Record<string, unknown> = {}): Promise<FuzzWorld> {
  const upstream = await new EchoUpstream().start();
  const providers: Record<string, Record<string, unknown>> = {};
  for (const id of PROVIDERS) providers[id] = { baseUrl: `${upstream.url}/${id}/v1`, headers: { 'OpenAI-Organization': CONFIGURED.providerHeader } };
  providers.groq!.apiKey = CONFIGURED.groqKey;
  const gw = await startGateway({
    logging: { level: 'error' },
    providers,
    auth: { enabled: true, type: 'bearer', adminToken: CONFIGURED.admin, apiKeys: [{ key: CONFIGURED.apiKeyCredential, user: 'cfg-user' }] },
    identityForwarding: { signingSecret: CONFIGURED.signing },
    routing: { defaults: { first_byte_timeout: 2000, idle_timeout: 2000 } },
    configs: { named: { strategy: { mode: 'fallback' }, targets: [{ provider: 'openai' }, { provider: 'groq' }] } },
    mcpServers: {
      proc: {
        command: process.execPath,
        args: [join(here, '..', 'helpers', 'echo-credentials-tool-server.mjs')],
        env: { ECHO_VARS: 'SECRET', SECRET: CONFIGURED.toolEnv },
      },
    },
    ...extra,
  });
  const dispatcher = new Agent({ connections: 8, keepAliveTimeout: 2000 });
  return {
    gw,
    upstream,
    base: gw.url,
    port: Number(new URL(gw.url).port),
    dispatcher,
    async close() {
      await dispatcher.close();
      await gw.close();
      await upstream.stop();
    },
  };
}

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

/** Sends a request (path as written) and reads the whole answer; a connection the gateway closed is `status: 0`. */
export async function send(world: FuzzWorld, req: FuzzRequest): Promise<Answer> {
  try {
    const res = await request(`${world.base}${req.path}`, {
      method: req.method as 'GET',
      headers: req.headers,
      body: req.method === 'GET' || req.method === 'HEAD' ? undefined : req.body,
      dispatcher: world.dispatcher,
      headersTimeout: 20_000,
      bodyTimeout: 20_000,
    });
    const text = await res.body.text();
    return { status: res.statusCode, headers: res.headers, text };
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'UND_ERR_CLOSED') return { status: 0, headers: {}, text: '' };
    throw err;
  }
}

/** Raw bytes on a fresh socket; the answer's status (0: closed without one) and body. */
export function sendRaw(port: number, bytes: Buffer, options: { endAfter?: boolean } = {}): Promise<Answer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    const timer = setTimeout(() => socket.destroy(), 10_000);
    socket.on('close', () => {
      clearTimeout(timer);
      const all = Buffer.concat(chunks).toString('utf8');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(all);
      const split = all.indexOf('\r\n\r\n');
      const headers: Record<string, string> = {};
      for (const line of all.slice(0, split).split('\r\n').slice(1)) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status: m ? Number(m[1]) : 0, headers, text: split >= 0 ? all.slice(split + 4) : '' });
    });
    socket.write(bytes);
    if (options.endAfter !== false) socket.end();
  });
}

const STATUS_OF: Record<string, number> = Object.fromEntries(Object.entries(ERROR_CATALOGUE).map(([code, e]) => [code, e.status]));

/** Whether an answer is the contract's error body, with the status its code has. */
export function expectContractError(answer: Answer, what: string): void {
  let body: any;
  try {
    body = JSON.parse(answer.text);
  } catch {
    throw new Error(`${what}: ${answer.status} with a body that is not JSON: ${answer.text.slice(0, 300)}`);
  }
  const ok =
    body &&
    body.status === 'failure' &&
    typeof body.message === 'string' &&
    body.error &&
    typeof body.error === 'object' &&
    typeof body.error.type === 'string' &&
    typeof body.error.code === 'string' &&
    body.error.message === body.message &&
    'param' in body.error &&
    'provider' in body.error;
  if (!ok) throw new Error(`${what}: ${answer.status} without the contract's error body: ${answer.text.slice(0, 300)}`);
  // A request the gateway cannot serve is the caller's problem or an upstream's, never an unexpected error of its own.
  if (body.error.code === 'internal_error') throw new Error(`${what}: a 500 (the gateway failed unexpectedly): ${answer.text.slice(0, 300)}`);
  const expected = body.error.code === 'request_timeout' && answer.status === 408 ? 408 : STATUS_OF[body.error.code];
  if (expected !== answer.status) throw new Error(`${what}: error code ${body.error.code} answered with ${answer.status} (the catalogue says ${expected})`);
}

/** No secret (configured, or sent by this request as a credential) in any spelling, anywhere in the answer. */
export function expectNoSecret(answer: Answer, requestSecrets: string[], what: string): void {
  const seen = `${answer.text}\n${JSON.stringify(answer.headers)}`;
  for (const value of [...Object.values(CONFIGURED), ...requestSecrets]) {
    for (const form of spellings(value)) {
      if (seen.includes(form)) throw new Error(`${what}: the answer holds ${JSON.stringify(form)}: ${seen.slice(Math.max(0, seen.indexOf(form) - 200), seen.indexOf(form) + 100)}`);
    }
  }
}

/** /health answers 200 (the process runs and serves). */
export async function expectHealthy(world: FuzzWorld): Promise<void> {
  const res = await request(`${world.base}/health`, { dispatcher: world.dispatcher });
  await res.body.dump();
  expect(res.statusCode).toBe(200);
}

/** Runs an async property with the suite's seed and case count. */
export async function fuzz<T>(name: string, arb: fc.Arbitrary<T>, runs: number, check: (value: T) => Promise<void>): Promise<number> {
  let count = 0;
  await fc.assert(
    fc.asyncProperty(arb, async (value) => {
      count++;
      await check(value);
    }),
    { numRuns: runs, seed: SEED, endOnFailure: true },
  );
  stats.push({ name, runs: count });
  return count;
}

/** Cases run per property in this process (reported at the end of each file). */
export const stats: Array<{ name: string; runs: number }> = [];

/** Answers seen, by status (reported at the end of each file: what the cases reached). */
export const statuses = new Map<number, number>();
export function countStatus(status: number): void {
  statuses.set(status, (statuses.get(status) ?? 0) + 1);
}

/** One line for the run's summary. */
export function summary(): string {
  const total = stats.reduce((n, s) => n + s.runs, 0);
  const byStatus = [...statuses.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([s, n]) => `${s}:${n}`)
    .join(' ');
  return `fuzz: ${total} cases in ${stats.length} properties (seed ${SEED}); answers by status ${byStatus}`;
}

/** Strings that are awkward everywhere: quotes, escapes, control characters, unicode, long runs. */
export const nastyString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\r\n',
    '"',
    '\\',
    '../..',
    '%00',
    '%2e%2e',
    '{{x}}',
    '${HOME}',
    '<script>',
    'null',
    'NaN',
    '-1',
    '1e309',
    '\uD800',
    '☃'.repeat(50),
    'a'.repeat(5000),
  ),
  fc.constantFrom(...CALLER_SECRETS),
);

/** Header values undici can send (visible Latin-1), some of them credentials. */
export const headerValue = fc.oneof(
  fc.stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,60}$/),
  fc.constantFrom(...CALLER_SECRETS.filter((s) => /^[\x20-\x7e]+$/.test(s))),
  fc.constantFrom('Bearer', 'Bearer ', 'bearer x', '0', '-1', '1'.repeat(300), '{}', '[]', 'null', 'openai', 'groq', 'bedrock'),
);

/** Credentials a request carries (for the no-secret check). */
export function credentialsOf(headers: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const n = name.toLowerCase();
    if (['x-gateway-api-key', 'x-gateway-token', 'x-gateway-aws-secret-access-key', 'x-gateway-aws-session-token', 'x-gateway-aws-access-key-id', 'x-api-key'].includes(n))
      out.push(value);
    if (n === 'authorization') {
      out.push(value);
      const m = /^bearer\s+(\S+)/i.exec(value);
      if (m) out.push(m[1]!);
    }
    if (n === 'x-gateway-config') {
      try {
        JSON.stringify(JSON.parse(value), (k, v) => {
          if (/api_key|aws_secret|aws_session|aws_access/.test(k) && typeof v === 'string') out.push(v);
          return v;
        });
      } catch {
        /* not JSON */
      }
    }
  }
  // Values too short or too plain to be masked are not credentials anyone could rely on.
  return out.filter((v) => v.length >= 8 && !/^(true|false|null|-?\d+(\.\d+)?)$/i.test(v.trim()));
}
