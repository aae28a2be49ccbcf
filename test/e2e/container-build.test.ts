import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { freePort, ROOT } from '../helpers/built-gateway.js';
import { makeTestCerts } from '../helpers/certs.js';

/** One instruction of a Dockerfile (continuation lines joined). */
interface Instruction {
  op: string;
  args: string;
}

/** The stages of the repository's Dockerfile, by name, each a list of instructions. */
function dockerStages(): Map<string, Instruction[]> {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\r?\n/g, ' ');
  const stages = new Map<string, Instruction[]>();
  let current: Instruction[] | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const [, op, args] = /^(\S+)\s+(.*)$/.exec(line)!;
    if (op!.toUpperCase() === 'FROM') {
      const name = / AS (\S+)$/i.exec(args!)?.[1] ?? String(stages.size);
      stages.set(name, (current = []));
      continue;
    }
    current?.push({ op: op!.toUpperCase(), args: args!.replace(/\s+/g, ' ').trim() });
  }
  return stages;
}

/** ENV k=v pairs of a stage. */
function envOf(stage: Instruction[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const i of stage.filter((s) => s.op === 'ENV')) for (const m of i.args.matchAll(/(\w+)=(\S+)/g)) env[m[1]!] = m[2]!;
  return env;
}

/** COPY [--from=x] <sources...> <dest> */
function copyOf(i: Instruction): { from?: string; sources: string[]; dest: string } {
  const parts = i.args.split(' ');
  const from = parts[0]!.startsWith('--from=') ? parts.shift()!.slice('--from='.length) : undefined;
  const dest = parts.pop()!;
  return { from, sources: parts, dest };
}

/** Copies like COPY does: a source folder's content into dest, a file into the dest folder. */
function copyInto(fromDir: string, sources: string[], dest: string, toDir: string): void {
  for (const source of sources) {
    const target = dest.endsWith('/') || sources.length > 1 || dest === './' ? join(toDir, dest, source.replace(/^\.\//, '').split('/').pop()!) : join(toDir, dest);
    cpSync(join(fromDir, source), target, { recursive: true });
  }
}

const hasContainerRuntime = spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0;

describe('the container image (Dockerfile), built the way the Dockerfile builds it', () => {
  const work = mkdtempSync(join(tmpdir(), 'gw-image-'));
  const buildDir = join(work, 'build');
  const appDir = join(work, 'app');
  const dataDir = join(work, 'data');
  const stages = dockerStages();
  const build = stages.get('build')!;
  const runtime = stages.get('runtime')!;

  beforeAll(() => {
    expect(build, 'a stage named build').toBeDefined();
    expect(runtime, 'a stage named runtime').toBeDefined();
    // The build stage: its COPY and RUN lines in order (the system packages it installs are on this machine).
    const env = { ...process.env, ...envOf(build), npm_config_prefer_offline: 'true', npm_config_update_notifier: 'false' };
    for (const i of build) {
      if (i.op === 'COPY') {
        const { sources, dest } = copyOf(i);
        copyInto(ROOT, sources, dest, buildDir);
      } else if (i.op === 'RUN' && !i.args.startsWith('apt-get')) {
        execFileSync('sh', ['-c', i.args], { cwd: buildDir, env, stdio: 'pipe', timeout: 600_000 });
      } else if (i.op === 'WORKDIR') {
        mkdirSync(buildDir, { recursive: true });
      }
    }
    // The runtime stage: what it copies from the build stage and from the repository.
    for (const i of runtime.filter((s) => s.op === 'COPY')) {
      const { from, sources, dest } = copyOf(i);
      copyInto(
        from === 'build' ? buildDir : ROOT,
        sources.map((s) => s.replace(/^\/app\//, '')),
        dest,
        appDir,
      );
    }
  }, 900_000);
  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('builds in two stages and runs as a non-root user, node dist/main.js as the entry, data under a volume, a health check on /health', () => {
    const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    expect(runtime.find((i) => i.op === 'USER')?.args).toBe('node');
    expect(runtime.find((i) => i.op === 'ENTRYPOINT')?.args).toBe('["node", "dist/main.js"]');
    const volume = runtime.find((i) => i.op === 'VOLUME')?.args;
    expect(volume).toBe(`["${envOf(runtime).GATEWAY_DATA_DIR}"]`);
    expect(runtime.find((i) => i.op === 'HEALTHCHECK')?.args).toContain('/health');
    expect(text).not.toMatch(/npm start|npm run start/);
    if (hasContainerRuntime) execFileSync('docker', ['build', '--target', 'build', '-q', ROOT], { stdio: 'pipe', timeout: 900_000 });
  });

  it('keeps only production dependencies and the compiled code in the image', () => {
    expect(existsSync(join(appDir, 'dist', 'main.js'))).toBe(true);
    expect(existsSync(join(appDir, 'node_modules', 'better-sqlite3'))).toBe(true);
    for (const dev of ['typescript', 'vitest', 'eslint', 'openai']) expect(existsSync(join(appDir, 'node_modules', dev)), dev).toBe(false);
    expect(existsSync(join(appDir, 'src'))).toBe(false);
  });

  it('starts from the built folder, passes its own health check, and drains on SIGTERM with exit 0', async () => {
    const port = await freePort();
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...envOf(runtime),
      GATEWAY_CONFIG: join(appDir, 'gateway.yaml'),
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_PORT: String(port),
      GATEWAY_HOST: '127.0.0.1',
    };
    const [cmd, ...args] = JSON.parse(runtime.find((i) => i.op === 'ENTRYPOINT')!.args) as string[];
    const child = spawn(cmd === 'node' ? process.execPath : cmd!, args, { cwd: appDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d));
    child.stderr.on('data', (d: Buffer) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    try {
      const url = `http://127.0.0.1:${port}`;
      const until = Date.now() + 30_000;
      let healthy = false;
      while (!healthy && Date.now() < until && child.exitCode === null) {
        healthy = await fetch(`${url}/health`).then(
          (r) => r.ok,
          () => false,
        );
        if (!healthy) await new Promise((r) => setTimeout(r, 100));
      }
      expect(healthy, output).toBe(true);
      // The HEALTHCHECK command itself, as the container runtime would run it.
      const check = JSON.parse(runtime.find((i) => i.op === 'HEALTHCHECK')!.args.replace(/^.*CMD /, '')) as string[];
      const probe = spawnSync(process.execPath, check.slice(1), { cwd: appDir, env, timeout: 10_000 });
      expect(probe.status).toBe(0);
      const ready = await fetch(`${url}/ready`);
      expect(ready.status).toBe(200);
      expect(existsSync(join(dataDir, 'gateway.db'))).toBe(true);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    // Once it stopped, the health check fails.
    const check = JSON.parse(runtime.find((i) => i.op === 'HEALTHCHECK')!.args.replace(/^.*CMD /, '')) as string[];
    expect(spawnSync(process.execPath, check.slice(1), { cwd: appDir, env, timeout: 10_000 }).status).toBe(1);
  }, 60_000);

  /** Starts the image's entry in appDir with `config` as GATEWAY_CONFIG (no GATEWAY_PORT), until it listens (plain HTTP: /health at `url` answers 200). */
  async function startWith(config: string, url: string, tls = false) {
    const path = join(work, `config-${Date.now()}.yaml`);
    writeFileSync(path, config);
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...envOf(runtime), GATEWAY_CONFIG: path, GATEWAY_DATA_DIR: dataDir };
    const [, ...args] = JSON.parse(runtime.find((i) => i.op === 'ENTRYPOINT')!.args) as string[];
    const child = spawn(process.execPath, args, { cwd: appDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d));
    child.stderr.on('data', (d: Buffer) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    const until = Date.now() + 30_000;
    while (Date.now() < until && child.exitCode === null && !/gateway listening/.test(output)) await new Promise((r) => setTimeout(r, 100));
    expect(output, output).toContain('gateway listening');
    if (!tls) expect((await fetch(`${url}/health`)).status).toBe(200);
    const healthcheck = () => {
      const check = JSON.parse(runtime.find((i) => i.op === 'HEALTHCHECK')!.args.replace(/^.*CMD /, '')) as string[];
      return spawnSync(process.execPath, check.slice(1), { cwd: appDir, env, timeout: 10_000, encoding: 'utf8' });
    };
    return { child, exited, healthcheck, output: () => output };
  }

  it("the health check follows the config's port and TLS (a port set only in the YAML, an HTTPS listener)", async () => {
    const certs = makeTestCerts();
    try {
      const httpPort = await freePort();
      const plain = await startWith(`server: { host: 127.0.0.1, port: ${httpPort} }\n`, `http://127.0.0.1:${httpPort}`);
      try {
        expect(plain.healthcheck().status, plain.output()).toBe(0);
      } finally {
        plain.child.kill('SIGTERM');
        expect(await plain.exited).toBe(0);
      }
      // Stopped: the same probe fails.
      expect(plain.healthcheck().status).toBe(1);

      const tlsPort = await freePort();
      const tls = await startWith(
        `server:\n  host: 127.0.0.1\n  port: ${tlsPort}\n  ssl: { enabled: true, cert: ${certs.serverCert}, key: ${certs.serverKey} }\n`,
        `https://127.0.0.1:${tlsPort}`,
        true,
      );
      try {
        // Plain HTTP gets no answer from the TLS port; the probe speaks HTTPS to it.
        expect(
          await fetch(`http://127.0.0.1:${tlsPort}/health`).then(
            (r) => r.status,
            () => 'refused',
          ),
        ).not.toBe(200);
        const probe = tls.healthcheck();
        expect(probe.status, `${probe.stderr}\n${tls.output()}`).toBe(0);
      } finally {
        tls.child.kill('SIGTERM');
        expect(await tls.exited).toBe(0);
      }
      expect(tls.healthcheck().status).toBe(1);
    } finally {
      certs.cleanup();
    }
  }, 90_000);

  it('ships examples/, so the example configs and plugins work in the image', () => {
    expect(existsSync(join(appDir, 'examples', 'plugins', 'header-stamp.mjs'))).toBe(true);
    const [, ...args] = JSON.parse(runtime.find((i) => i.op === 'ENTRYPOINT')!.args) as string[];
    const result = spawnSync(process.execPath, [...args, '--check', '--config', 'examples/configs/with-plugin.yaml'], {
      cwd: appDir,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(`${result.stdout}${result.stderr}`.trim()).toBe('ok');
  });

  it('runs on the current Node LTS line (24), not the end-of-life 20', () => {
    const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    expect(/^ARG NODE_VERSION=(\S+)$/m.exec(text)?.[1]).toBe('24');
    for (const stage of ['build', 'runtime']) expect(text).toContain(`FROM node:\${NODE_VERSION}-bookworm-slim AS ${stage}`);
  });

  it('compose.yaml runs the image with PostgreSQL and Redis, each waited for until healthy', () => {
    const compose = parseYaml(readFileSync(join(ROOT, 'compose.yaml'), 'utf8'));
    expect(Object.keys(compose.services).sort()).toEqual(['gateway', 'postgres', 'redis']);
    const gateway = compose.services.gateway;
    expect(gateway.build).toBe('.');
    expect(gateway.depends_on).toEqual({ postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } });
    expect(gateway.environment.DATABASE_URL).toMatch(/^postgres:\/\/\w+:\w+@postgres:5432\//);
    expect(gateway.environment.REDIS_URL).toBe('redis://redis:6379');
    // Published on the host's loopback only (a load balancer or reverse proxy on the host fronts it).
    expect(gateway.ports).toEqual(['127.0.0.1:${GATEWAY_HOST_PORT:-8787}:8787']);
    const [configSource, configTarget] = (gateway.volumes as string[]).find((v) => v.endsWith(':ro'))!.split(':');
    expect(configTarget).toBe(gateway.environment.GATEWAY_CONFIG);
    expect(existsSync(join(ROOT, configSource!))).toBe(true);
    expect((gateway.volumes as string[]).some((v) => v.endsWith(`:${envOf(runtime).GATEWAY_DATA_DIR}`))).toBe(true);
    for (const name of ['postgres', 'redis']) expect(compose.services[name].healthcheck.test.length).toBeGreaterThan(0);
  });
});
