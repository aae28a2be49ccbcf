import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, buildGateway, freePort, waitForHealth, type GatewayProcess } from '../../helpers/built-gateway.js';
import { logRecords } from '../../helpers/npm-start.js';

/**
 * A stdio tool server that records its pid (and the pid of a helper process it starts, which
 * ignores its stdin) in PID_DIR, and answers `echo` after `wait` ms.
 */
const TOOL_SERVER = `
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import readline from 'node:readline';
writeFileSync(join(process.env.PID_DIR, 'server-' + process.pid), '');
const helper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
writeFileSync(join(process.env.PID_DIR, 'helper-' + helper.pid), '');
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
const rl = readline.createInterface({ input: process.stdin });
rl.on('close', () => process.exit(0));
rl.on('line', async (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'slow', version: '1' } } });
  else if (m.method === 'tools/list') send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'echo', description: 'echo', inputSchema: { type: 'object', properties: { t: { type: 'string' }, wait: { type: 'number' } } } }] } });
  else if (m.method === 'tools/call') {
    await new Promise((r) => setTimeout(r, Number(m.params.arguments?.wait ?? 0)));
    send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'echo:' + (m.params.arguments?.t ?? '') }] } });
  } else if (m.id !== undefined) send({ jsonrpc: '2.0', id: m.id, result: {} });
});
`;

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Whether a process runs (a zombie nobody reaped yet does not count). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const by = Date.now() + ms;
  while (!check() && Date.now() < by) await new Promise((r) => setTimeout(r, 50));
  return check();
}

/** An MCP session on /mcp: initialize, initialized; returns the headers of the session. */
async function openSession(url: string): Promise<Record<string, string>> {
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });
  expect(res.status).toBe(200);
  await res.text();
  const sid = res.headers.get('mcp-session-id');
  const headers: Record<string, string> = { ...HEADERS, 'mcp-protocol-version': '2025-06-18', ...(sid ? { 'mcp-session-id': sid } : {}) };
  await (await fetch(`${url}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
  return headers;
}

/**
 * Stdio tool servers lead process groups of their own: a SIGTERM to the gateway's process group
 * (a supervisor, Ctrl-C) does not cut the tool calls in flight; the gateway drains them, then stops
 * the servers (and whatever they started) itself. Nothing is left running.
 */
describe('stdio tool servers and a signal to the process group (the built process)', { timeout: 90_000 }, () => {
  let dir: string;
  const running: GatewayProcess[] = [];

  beforeAll(() => {
    buildGateway();
    dir = mkdtempSync(join(tmpdir(), 'gw-tool-group-'));
    writeFileSync(join(dir, 'slow-tool-server.mjs'), TOOL_SERVER);
  }, 240_000);
  afterAll(() => {
    for (const p of running) p.kill();
    // Whatever a failed test left behind.
    for (const sub of readdirSync(dir).filter((n) => n.startsWith('pids-')))
      for (const name of readdirSync(join(dir, sub))) {
        try {
          process.kill(Number(name.split('-')[1]), 'SIGKILL');
        } catch {
          /* gone */
        }
      }
    rmSync(dir, { recursive: true, force: true });
  });

  /** The built gateway as the leader of its own process group (as `setsid` or a supervisor starts it). */
  async function start(name: string) {
    const port = await freePort();
    const pids = join(dir, `pids-${name}`);
    mkdirSync(pids);
    const config = join(dir, `${name}.yaml`);
    writeFileSync(
      config,
      `server:\n  host: 127.0.0.1\n  shutdownGracePeriod: 30s\nmcpServers:\n  slow:\n    command: ${process.execPath}\n    args: [${JSON.stringify(join(dir, 'slow-tool-server.mjs'))}]\n    env: {PID_DIR: ${JSON.stringify(pids)}}\n`,
    );
    const child = spawn(process.execPath, [buildGateway(), '--config', config], {
      cwd: ROOT,
      detached: true,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', GATEWAY_PORT: String(port), GATEWAY_DATA_DIR: join(dir, `data-${name}`) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    const proc: GatewayProcess = {
      child,
      stdout: () => out,
      stderr: () => err,
      exited: new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))),
      kill: () => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* gone */
        }
      },
    };
    running.push(proc);
    const url = `http://127.0.0.1:${port}`;
    await waitForHealth(url, proc, 60_000);
    expect(await until(() => readdirSync(pids).length === 2, 20_000)).toBe(true);
    const ready = async () => (await fetch(`${url}/ready`)).status === 200;
    const by = Date.now() + 20_000;
    while (!(await ready()) && Date.now() < by) await new Promise((r) => setTimeout(r, 50));
    const pidList = () => readdirSync(pids).map((n) => Number(n.split('-')[1]));
    const pidOf = (role: string) =>
      Number(
        readdirSync(pids)
          .find((n) => n.startsWith(`${role}-`))!
          .split('-')[1],
      );
    return { proc, url, pidList, server: pidOf('server'), helper: pidOf('helper') };
  }

  it('a tool call in flight finishes, the gateway exits 0, and no tool server process remains', async () => {
    const { proc, url, pidList, server, helper } = await start('group');
    expect(alive(server) && alive(helper)).toBe(true);

    const headers = await openSession(url);
    const call = fetch(`${url}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow__echo', arguments: { t: 'hi', wait: 2000 } } }),
    }).then(async (res) => ({ status: res.status, text: await res.text() }));
    await new Promise((r) => setTimeout(r, 700));
    process.kill(-proc.child.pid!, 'SIGTERM');

    const answer = await call;
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('echo:hi');
    expect(answer.text).not.toContain('closed the connection');
    expect(await proc.exited).toEqual({ code: 0, signal: null });
    expect(logRecords(proc).at(-1)).toMatchObject({ msg: 'gateway stopped', exitCode: 0 });
    // The server and what it started are gone (no process of the gateway's group either).
    expect(await until(() => pidList().every((pid) => !alive(pid)), 5000)).toBe(true);
    expect(() => process.kill(-proc.child.pid!, 0)).toThrow();
  });

  it('a gateway killed outright: the tool server sees its stdin close and exits', async () => {
    const { proc, server } = await start('killed');
    process.kill(proc.child.pid!, 'SIGKILL');
    await proc.exited;
    expect(await until(() => !alive(server), 5000)).toBe(true);
  });
});
