import cluster, { type Worker } from 'node:cluster';
import type { GatewayConfig } from '../generated/gateway.js';
import { createLogger } from '../kernel/observability/logger.js';
import { registerSecrets } from '../kernel/errors/redact.js';
import { configSecrets, loadConfigFile, registeredFeatures } from '../config.js';
import type { SharedCall, SharedReply } from '../kernel/cluster/primary-channel.js';
import type { ClusterService } from '../kernel/config/features.js';
import { problemLines } from './check.js';
import { watchParent } from './parent-watch.js';
import { onStopSignal } from './stop-signals.js';

/** Workers that die this many times within CRASH_WINDOW_MS stop the gateway (a crash loop). */
const MAX_CRASHES = 5;
const CRASH_WINDOW_MS = 60_000;

/**
 * Every worker accepts on the one listening socket the primary opened (SCHED_NONE), rather than
 * the primary accepting and handing each connection over (node's round-robin): a connection
 * handed to a worker that dies before taking it stays open in the primary forever (node 20, 22),
 * a client waiting with no answer and no close. Accepted in a worker, a connection closes with it.
 */
function workersAcceptThemselves(): void {
  cluster.schedulingPolicy = cluster.SCHED_NONE;
}

/** State the primary holds for every worker (used when no Redis is configured), as the features declare it (rate counters, the cache). */
function sharedState(config: GatewayConfig): Record<string, ClusterService> {
  const services: Record<string, ClusterService> = {};
  for (const feature of registeredFeatures()) if (feature.clusterState) Object.assign(services, feature.clusterState(config));
  return services;
}

/**
 * The primary of `server.workers`: forks the workers (each a whole gateway serving the shared
 * port), logs one start-up line once all listen, holds the shared counters and cache, restarts
 * a worker that dies, and handles SIGTERM/SIGINT (every worker drains, then the primary exits)
 * and SIGHUP (the config is checked once, then every worker reloads) once for all.
 */
export function runPrimary(path: string, config: GatewayConfig, count: number): void {
  registerSecrets(configSecrets(config));
  const logger = createLogger(config.logging?.level ?? 'info');
  const shared = sharedState(config);
  const listening = new Map<number, Record<string, unknown>>();
  const crashes: number[] = [];
  let started = false;
  let stopping: string | undefined;
  let failed = false;

  workersAcceptThemselves(); // before the first fork, which fixes the policy
  const fork = (): Worker => {
    const worker = cluster.fork();
    worker.on('message', (msg: { type?: string; fields?: Record<string, unknown> }) => {
      if (msg?.type === 'gw-listening') {
        listening.set(worker.id, msg.fields ?? {});
        if (!started && listening.size === count) {
          started = true;
          const first = [...listening.values()][0]!;
          logger.info({ ...first, pid: process.pid, workers: [...Object.values(cluster.workers ?? {})].map((w) => w!.process.pid) }, 'gateway listening');
        }
      } else if (msg?.type === 'gw-reload-request') {
        // POST /v1/admin/config/reload on a worker: every worker reloads, as on SIGHUP.
        reloadAll();
      } else if (msg?.type === 'gw-broadcast') {
        // State one worker tells the others (e.g. a circuit that opened): passed on as it came.
        for (const other of Object.values(cluster.workers ?? {})) if (other && other !== worker && other.isConnected()) other.send(msg);
      } else if (msg?.type === 'gw-shared-call') {
        const call = msg as unknown as SharedCall;
        const fn = shared[call.service]?.[call.op];
        const reply = (r: Omit<SharedReply, 'type' | 'id'>) => {
          if (worker.isConnected()) worker.send({ type: 'gw-shared-reply', id: call.id, ...r } satisfies SharedReply);
        };
        if (!fn) reply({ error: `no shared ${call.service}.${call.op}` });
        else
          fn(...(call.args as never[])).then(
            (result) => reply({ result: result ?? null }),
            (err: Error) => reply({ error: err.message }),
          );
      }
    });
    return worker;
  };

  const stopAll = (reason: string) => {
    if (stopping) return;
    stopping = reason;
    logger.info({ signal: reason }, 'draining');
    for (const worker of Object.values(cluster.workers ?? {})) {
      if (!worker) continue;
      // A worker still starting may not listen for messages yet; its SIGTERM handling covers every stage.
      if (listening.has(worker.id) && worker.isConnected()) worker.send({ type: 'shutdown' });
      else worker.process.kill('SIGTERM');
    }
    if (Object.keys(cluster.workers ?? {}).length === 0) finish();
  };
  const finish = () => {
    const code = failed ? 1 : 0;
    logger.info({ signal: stopping, exitCode: code }, 'gateway stopped');
    const timer = setTimeout(() => process.exit(code), 1000);
    logger.flush(() => {
      clearTimeout(timer);
      process.exit(code);
    });
  };

  cluster.on('exit', (worker, code, signal) => {
    listening.delete(worker.id);
    if (stopping) {
      if (code !== 0 && signal !== 'SIGTERM') failed = true;
      if (Object.keys(cluster.workers ?? {}).length === 0) finish();
      return;
    }
    if (!started) {
      // A worker that could not start (its pipelines, its port): the gateway does not start.
      failed = true;
      stopAll('a worker failed to start');
      return;
    }
    const now = Date.now();
    crashes.push(now);
    while (crashes.length && crashes[0]! < now - CRASH_WINDOW_MS) crashes.shift();
    logger.error({ worker: worker.process.pid, code, signal }, 'worker exited; starting another');
    if (crashes.length >= MAX_CRASHES) {
      failed = true;
      stopAll('workers keep crashing');
      return;
    }
    fork();
  });

  /** `signal`: SIGHUP asked for it (named to one worker, which keeps it in the audit log); else a worker's admin API request did (that worker kept it). */
  const reloadAll = (signal?: 'SIGHUP'): void => {
    if (stopping) return;
    // Checked once here, so a bad file gives one line per problem (not one per worker).
    try {
      const next = loadConfigFile(path);
      registerSecrets(configSecrets(next));
      const workers = next.server?.workers ?? 1;
      if (workers !== (config.server?.workers ?? 1)) logger.warn({ workers }, 'server.workers: a new number of workers takes effect at the next start');
    } catch (err) {
      for (const line of problemLines(err)) logger.error({ reload: 'failed; the running config stays' }, line);
      return;
    }
    let told = false;
    for (const worker of Object.values(cluster.workers ?? {})) {
      if (!worker?.isConnected()) continue;
      worker.send(signal && !told ? { type: 'reload', signal } : { type: 'reload' });
      told = true;
    }
  };
  process.on('SIGHUP', () => reloadAll('SIGHUP'));
  watchParent(() => stopAll('parent process gone'));
  for (const feature of registeredFeatures()) for (const { fields, message } of feature.clusterWarnings?.(config, count) ?? []) logger.warn(fields, message);
  // A signal held since start-up stops the gateway before any worker starts.
  onStopSignal(stopAll);
  if (!stopping) for (let i = 0; i < count; i++) fork();
}
