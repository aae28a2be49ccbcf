import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = join(here, '..', '..');

/** The process tool server of the tests (test/helpers/stdio-tool-server.mjs) as an mcpServers entry. */
export function stdioToolServer(env: Record<string, string> = {}) {
  return { command: process.execPath, args: [join(here, 'stdio-tool-server.mjs')], env };
}

/** @modelcontextprotocol/server-everything (a devDependency) as a process tool server. */
export function everythingServer() {
  const pkgDir = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything');
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  return { command: process.execPath, args: [join(pkgDir, Object.values(pkg.bin)[0]!), 'stdio'] };
}

/** An MCP SDK client connected to `url` (the gateway's /mcp), sending `headers` on every request. */
export async function connectClient(url: string, headers: Record<string, string> = {}, fetchImpl?: FetchLike): Promise<Client> {
  const client = new Client({ name: 'gateway-test-client', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers }, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
  await client.connect(transport);
  return client;
}

/** The first text content of a tool result. */
export function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.find((c) => c.type === 'text')?.text ?? '';
}

/** Waits until `check` returns a truthy value (polling), or fails after `timeoutMs`. */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

/** A raw JSON-RPC POST to /mcp (for stateless and 2026-07-28 clients), answer parsed (JSON or SSE). */
export async function rawPost(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; json: any; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const events = text
      .split('\n')
      // An event with empty data (a resumable stream's priming event) carries no message.
      .filter((l) => l.startsWith('data: ') && l.length > 6)
      .map((l) => JSON.parse(l.slice(6)));
    json = events.at(-1);
  } else if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  return { status: res.status, headers: res.headers, json, text };
}
