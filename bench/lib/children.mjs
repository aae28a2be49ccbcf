// Child processes of the bench: the fake upstream, the bare proxy and the gateway (built dist/).
// Every child gets an IPC channel, so it goes away with the bench even if the bench is killed.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { request } from 'undici';

const LIB = fileURLToPath(new URL('.', import.meta.url));
export const ROOT = join(LIB, '..', '..');

const live = new Set();

/** Stops every child still running (SIGTERM, then SIGKILL after 3 s). */
export async function stopAll() {
  await Promise.all([...live].map((c) => c.stop()));
}

function track(child, name) {
  let exited = false;
  const exit = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      exited = true;
      resolve({ code, signal });
    }),
  );
  const terminate = async () => {
    live.delete(handle);
    if (exited) return exit;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
    const result = await exit;
    clearTimeout(timer);
    return result;
  };
  let heapAsks = 0;
  const handle = {
    child,
    name,
    pid: child.pid,
    /**
     * The child's memory before and after a full GC ({ before, after, fds }; null when it does not
     * answer within 30 s): only for a child started with the heap probe (bench/lib/heap-probe.mjs).
     */
    heap() {
      const id = ++heapAsks;
      return new Promise((resolve) => {
        const done = (value) => {
          clearTimeout(timer);
          child.off('message', onMessage);
          resolve(value);
        };
        const onMessage = (msg) => {
          if (msg?.bench === 'heap' && msg.id === id) done(msg);
        };
        const timer = setTimeout(() => done(null), 30_000);
        child.on('message', onMessage);
        try {
          child.send({ bench: 'heap', id });
        } catch {
          done(null);
        }
      });
    },
    exit,
    terminate,
    get exited() {
      return exited;
    },
    stop: terminate,
  };
  live.add(handle);
  return handle;
}

/** Waits for a "READY <port>" line on the child's stdout. */
function readyPort(child, name, timeoutMs = 10_000) {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`${name} did not start within ${timeoutMs} ms`)), timeoutMs);
    child.stdout.on('data', (chunk) => {
      text += chunk;
      const m = /READY (\d+)/.exec(text);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with code ${code} before it was ready`));
    });
  });
}

/** `node <args>`, or `<wrapper...> node <args>` (a tool that runs node, such as valgrind: bench/instructions.mjs). */
function spawnNode(args, options = {}, wrapper = []) {
  const [command, ...before] = wrapper.length ? [...wrapper, process.execPath] : [process.execPath];
  return spawn(command, [...before, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit', 'ipc'], ...options });
}

/** Starts the fake upstream; scenario files may add routes to it. */
export async function startFake(scenarioFiles) {
  const child = spawnNode([join(LIB, 'fake-upstream.mjs'), ...scenarioFiles]);
  const handle = track(child, 'fake upstream');
  const port = await readyPort(child, 'fake upstream');
  const url = `http://127.0.0.1:${port}`;
  return Object.assign(handle, {
    url,
    /** { connections, requests } the fake has seen so far (its own stats requests not counted). */
    async stats() {
      const res = await request(`${url}/_bench/stats`, { reset: true }); // its own connection, closed after
      return res.body.json();
    },
  });
}

/** The heap probe preloaded into the proxy and the gateway when the bench reads their heap (--heap). */
const HEAP_PROBE = ['--import', pathToFileURL(join(LIB, 'heap-probe.mjs')).href];

/**
 * Starts the bare forwarding proxy in front of `upstream`; `cpuProfDir` adds --cpu-prof (bare-proxy.cpuprofile, written at exit);
 * `heapProbe` preloads bench/lib/heap-probe.mjs (handle.heap()); `nodeArgs`: more node flags;
 * `wrapper`: a command node runs under (see spawnNode).
 */
export async function startProxy(upstream, { cpuProfDir, heapProbe = false, nodeArgs = [], wrapper = [] } = {}) {
  const prof = cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`, '--cpu-prof-name=bare-proxy.cpuprofile'] : [];
  const child = spawnNode([...nodeArgs, ...prof, ...(heapProbe ? HEAP_PROBE : []), join(LIB, 'bare-proxy.mjs'), upstream], {}, wrapper);
  const handle = track(child, 'bare proxy');
  const port = await readyPort(child, 'bare proxy', wrapper.length ? 300_000 : 10_000);
  return Object.assign(handle, { url: `http://127.0.0.1:${port}` });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitHealthy(url, handle, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (handle.exited) throw new Error('the gateway exited while starting (see its output above)');
    try {
      const res = await request(`${url}/health`);
      await res.body.dump();
      if (res.statusCode === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the gateway was not healthy within ${timeoutMs} ms`);
}

/**
 * Starts `node <root>/dist/main.js --config <bench config>` with its own data folder. `cpuProfDir` adds
 * --cpu-prof (the profile is written when the gateway exits). Log lines (stdout) go to a file.
 * `wrapper`: a command node runs under (see spawnNode), `startTimeoutMs` how long it may take to be healthy.
 */
export async function startGateway(config, { cpuProfDir, label = 'gateway', root = ROOT, heapProbe = false, wrapper = [], startTimeoutMs = 30_000 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'gw-bench-'));
  const port = await freePort();
  const full = { ...config, server: { ...config.server, host: '127.0.0.1', port } };
  const configPath = join(dir, 'gateway.json');
  writeFileSync(configPath, JSON.stringify(full, null, 2));
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GATEWAY_') && k !== 'LOG_LEVEL' && k !== 'NODE_OPTIONS') env[k] = v;
  env.GATEWAY_DATA_DIR = join(dir, 'data');
  env.NODE_ENV = 'production';
  // BENCH_GATEWAY_NODE_ARGS: extra node flags for the gateway (e.g. V8 heap settings to compare).
  const extra = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const args = [...extra, '--import', pathToFileURL(join(LIB, 'exit-with-parent.mjs')).href, ...(heapProbe ? HEAP_PROBE : [])];
  if (cpuProfDir) args.push('--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`, `--cpu-prof-name=${label}.cpuprofile`);
  args.push(join(root, 'dist', 'main.js'), '--config', configPath);
  const child = spawnNode(args, { env, cwd: root }, wrapper);
  const logPath = join(dir, 'gateway.log');
  const log = createWriteStream(logPath);
  child.stdout.pipe(log);
  const handle = track(child, label);
  const url = `http://127.0.0.1:${port}`;
  const cleanUp = async () => {
    // The pipe ends the log file when the child's stdout closes (after it exits).
    if (!log.writableFinished) {
      await new Promise((r) => {
        const t = setTimeout(r, 2_000);
        log.once('finish', () => {
          clearTimeout(t);
          r();
        });
      });
    }
    // Read line by line, keeping warn and above: a long soak's log (a line per request) outgrows one string.
    const lines = [];
    const reader = createInterface({ input: createReadStream(logPath, 'utf8'), crlfDelay: Infinity });
    for await (const line of reader) if (line && !/^\{"level":(10|20|30),/.test(line)) lines.push(line);
    rmSync(dir, { recursive: true, force: true });
    return lines;
  };
  try {
    await waitHealthy(url, handle, startTimeoutMs);
  } catch (err) {
    await handle.terminate();
    await cleanUp();
    throw err;
  }
  return Object.assign(handle, {
    url,
    logPath,
    /** Resident set size now (VmRSS), in MB. */
    rssMb() {
      const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      return m ? Number(m[1]) / 1024 : null;
    },
    /** Peak resident set size so far (VmHWM), in MB. */
    peakRssMb() {
      const m = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      return m ? Number(m[1]) / 1024 : null;
    },
    /** Stops the gateway; returns its exit and the log lines it wrote (warn and above). */
    async stop() {
      const exit = await handle.terminate();
      return { ...exit, logLines: await cleanUp() };
    },
  });
}
