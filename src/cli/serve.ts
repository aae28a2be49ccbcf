import type { Gateway } from '../gateway.js';
import type { Logger } from '../kernel/observability/logger.js';
import { loadConfigFile } from '../config.js';
import type { ReloadOutcome } from '../kernel/engine/config-admin.js';
import { problemLines } from './check.js';
import { startupFields } from './startup-summary.js';
import { watchParent } from './parent-watch.js';
import { onStopSignal } from './stop-signals.js';
import { releaseYoungGeneration } from '../kernel/memory/startup-heap.js';

/** How an instance is told to stop and reload: by its own signals, or by the primary of a cluster. */
export interface ServeOptions {
  /** A cluster worker: SIGHUP comes from the primary as a message (a signal to the group is the primary's to handle). */
  worker?: boolean;
  /** Called once listening, with the start-up fields (a worker reports them to the primary). */
  onListening?(fields: Record<string, unknown>): void;
}

function writeProblems(problems: string[]): void {
  for (const line of problems) process.stderr.write(`${line}\n`);
}

/** Flushes the log and exits (the last line written reaches stdout first). */
function exitAfterFlush(logger: Logger | undefined, code: number): void {
  if (!logger) process.exit(code);
  const timer = setTimeout(() => process.exit(code), 1000);
  // (fsync of a pipe fails with EINVAL; the lines were written all the same)
  logger.flush(() => {
    clearTimeout(timer);
    process.exit(code);
  });
}

/**
 * Runs one gateway instance: load the config, build, listen, log the start-up line. SIGTERM and
 * SIGINT (handled from the first moment, so also while tool servers start) drain and exit 0; a
 * gateway whose parent process went away drains too; SIGHUP reloads the config file and the
 * pipelines, keeping the running config on any problem (one log line per problem).
 */
export async function serve(path: string, options: ServeOptions = {}): Promise<void> {
  let gateway: Gateway | undefined;
  let stopping: string | undefined;
  let reloading: Promise<void> = Promise.resolve();

  const stop = (reason: string): void => {
    if (stopping) return;
    stopping = reason;
    // Before the gateway exists, the start-up sequence notices `stopping` and closes what it made.
    if (gateway) void drainAndExit(gateway, reason);
  };
  const drainAndExit = async (gw: Gateway, reason: string) => {
    const logger = gw.services.logger;
    logger.info({ signal: reason }, 'draining');
    let code = 0;
    try {
      await reloading;
      await gw.close();
    } catch (err) {
      code = 1;
      logger.error({ err: (err as Error).message }, 'error during shutdown');
    }
    logger.info({ signal: reason, exitCode: code }, 'gateway stopped');
    exitAfterFlush(logger, code);
  };
  /**
   * Reloads the config file (SIGHUP, the primary's message, or POST /v1/admin/config/reload);
   * resolves with what it came to. `signal`: a reload SIGHUP asked for, kept in the audit log
   * once it took place (the admin API keeps its own, with the caller).
   */
  const reloadNow = (signal?: 'SIGHUP'): Promise<ReloadOutcome> => {
    const gw = gateway;
    if (!gw || stopping) return Promise.resolve({ status: 'failed', file: path, problems: ['the gateway is shutting down'] });
    const done = reloading.then(async (): Promise<ReloadOutcome> => {
      if (stopping) return { status: 'failed', file: path, problems: ['the gateway is shutting down'] };
      const logger = gw.services.logger;
      try {
        await gw.reload(loadConfigFile(path));
      } catch (err) {
        const problems = problemLines(err);
        for (const line of problems) logger.error({ reload: 'failed; the running config stays' }, line);
        return { status: 'failed', file: path, problems };
      }
      // Kept before the line is written (whoever waits for the line finds the entry).
      if (signal) {
        const { AUDIT, configReloadEntry } = await import('../features/governance/index.js');
        await gw.services
          .get(AUDIT)
          ?.recordEvent({ kind: 'signal', id: signal }, configReloadEntry('reloaded', path, signal))
          .catch((err: Error) => logger.warn({ err: err.message }, 'could not keep the config reload in the audit log'));
      }
      logger.info(startupFields(gw, path), 'config reloaded');
      return { status: 'reloaded', file: path };
    });
    reloading = done.then(() => undefined);
    return done;
  };
  const reload = (signal?: 'SIGHUP'): void => void reloadNow(signal);
  /**
   * The admin API's reload: a single process reloads itself; a cluster worker checks the file,
   * then asks the primary, which reloads every worker (as SIGHUP to the primary does).
   */
  const reloadFromFile = async (): Promise<ReloadOutcome> => {
    if (!options.worker) return reloadNow();
    try {
      loadConfigFile(path);
    } catch (err) {
      return { status: 'failed', file: path, problems: problemLines(err) };
    }
    process.send?.({ type: 'gw-reload-request' });
    return { status: 'requested', file: path };
  };

  // Also a signal that came while the gateway loaded (held since main's first line).
  onStopSignal(stop);
  if (options.worker) {
    process.on('SIGHUP', () => undefined); // the primary tells every worker once
    process.on('message', (msg: { type?: string; signal?: 'SIGHUP' }) => {
      // The primary names the signal to one worker only: the reload is kept in the audit log once.
      if (msg?.type === 'reload') reload(msg.signal === 'SIGHUP' ? 'SIGHUP' : undefined);
      else if (msg?.type === 'shutdown') stop('SIGTERM');
    });
    process.on('disconnect', () => stop('primary gone'));
  } else {
    process.on('SIGHUP', () => reload('SIGHUP'));
  }

  let config;
  try {
    config = loadConfigFile(path);
  } catch (err) {
    writeProblems(problemLines(err));
    process.exit(1);
  }
  try {
    const { createGateway } = await import('../gateway.js');
    gateway = await createGateway(config, { reloadFromFile });
  } catch (err) {
    writeProblems(problemLines(err));
    process.exit(1);
  }
  const gw = gateway;
  if (stopping) return drainAndExit(gw, stopping);
  watchParent(() => stop('parent process gone'));
  try {
    await gw.listen();
  } catch (err) {
    if (!gw.listenAddress) {
      // The port could not be opened: stop what the capabilities set up (stores) before leaving.
      await gw.close(0).catch(() => undefined);
      writeProblems(problemLines(err));
      process.exit(1);
    }
    gw.services.logger.error({ err: (err as Error).message }, 'a capability failed to start');
  }
  if (stopping) return; // drainAndExit runs
  releaseYoungGeneration();
  const fields = startupFields(gw, path);
  if (options.onListening) options.onListening(fields);
  else gw.services.logger.info(fields, 'gateway listening');
}
