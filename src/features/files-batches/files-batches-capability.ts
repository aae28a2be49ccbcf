import { readdirSync, rmSync, statSync } from 'node:fs';
import cluster from 'node:cluster';
import { join } from 'node:path';
import type { Capability } from '../../kernel/capability.js';
import { parseDuration } from '../../kernel/config/defaults.js';
import { HTTP_EDGE } from '../../kernel/http/pipeline-handler.js';
import { spoolDirectory } from '../../kernel/http/multipart/multipart-upload.js';
import { getStore } from '../../kernel/store/store-capability.js';
import { defineService, type GatewayServices } from '../../kernel/engine/services.js';
import { GatewayFileStore } from './gateway-files.js';
import { BatchRunner } from './batch-runner.js';
import { BatchStore } from './batch-store.js';
import { CredentialVault } from './credential-vault.js';
import { FILES_BATCHES, type FilesBatches } from './files-batches-service.js';
import gatewayBatches from './gateway-batches-stage.js';
import heldObjects from './held-objects-stage.js';
import { FILES_BATCHES_MIGRATIONS } from './migrations.js';
import { uploadSpoolPath } from './file-upload.js';

/** Whose pipelines the (possibly kept) batch runner runs its lines through. */
const RUNNER_TARGET = defineService<{ services: GatewayServices }>('batch-runner-target');

/** Spooled uploads older than this cannot belong to a request still running (a crash left them). */
const STALE_SPOOL_MS = 24 * 60 * 60 * 1000;

function removeStaleSpool(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const cutoff = Date.now() - STALE_SPOOL_MS;
  for (const name of names) {
    const path = join(dir, name);
    try {
      if (statSync(path).mtimeMs < cutoff) rmSync(path, { force: true });
    } catch {
      // Removed meanwhile.
    }
  }
}

/**
 * Files and batches the gateway keeps and runs itself: the stage `gateway-batches` (and
 * `held-objects`, which keeps what a provider stores on a held key to its owner), the file
 * store under storage.filesDir, and the batch runner, which runs each line through its route's
 * compiled pipeline and resumes unfinished batches once the server listens. The spool folder of
 * uploads (see file-upload.ts) is made at start, and what a crash left in it removed.
 */
export const filesBatchesCapability: Capability = {
  name: 'files-batches',
  async setup(services) {
    // The spool folder of uploads (validate stage) is made here, once, with what a crash left removed.
    const spool = uploadSpoolPath(services.config);
    removeStaleSpool(spool);
    spoolDirectory(spool);
    services.stages.register(gatewayBatches);
    services.stages.register(heldObjects);
    const store = getStore(services);
    await store.migrate(FILES_BATCHES_MIGRATIONS);
    const config = services.config;
    const vaultKey = process.env.GATEWAY_SECRET_KEY || config.auth?.adminToken || undefined;
    const settings = (config.batches ?? {}) as { concurrency?: number; maxRateLimitWaits?: number; interruptedLines?: 'fail' | 'resend'; claimTimeout?: string };
    // The runner (and the batches it runs) is kept across a reload while its settings are
    // unchanged; it always runs lines through the newest config's pipelines.
    const kept = services.resources.keep(
      'files-batches',
      { storage: config.storage, batches: settings, vaultKey },
      () => {
        const current = { services };
        const files = new GatewayFileStore(store, config.storage?.filesDir ?? './data/files');
        const batches = new BatchStore(store);
        const vault = new CredentialVault(vaultKey);
        const runner = new BatchRunner({
          batches,
          files,
          vault,
          // The HTTP edge, provided by createGateway once the pipelines are compiled (after set-up).
          // eslint-disable-next-line no-restricted-syntax -- one runner per process
          get edge() {
            return current.services.require(HTTP_EDGE);
          },
          logger: services.logger,
          lines: services.metrics.counter('gateway_batch_lines_total', 'Lines of gateway-run batches, by status (succeeded, failed, rate_limited: put back to wait out a 429).', [
            'status',
          ]),
          concurrency: settings.concurrency ?? 8,
          maxWaits: settings.maxRateLimitWaits ?? 5,
          maxWaitMs: 60_000,
          interrupted: settings.interruptedLines ?? 'fail',
          // One process alone on its SQLite file: every line found in flight at start-up was
          // interrupted. The workers of a cluster (one SQLite file) and instances on one
          // PostgreSQL share each batch's lines, every line claimed by one of them.
          exclusive: store.dialect === 'sqlite' && !cluster.isWorker,
          leaseMs: parseDuration(settings.claimTimeout ?? '30s'),
        });
        return { current, parts: { files, batches, runner, vault } as FilesBatches };
      },
      ({ parts }) => parts.runner.stop(10_000),
    );
    services.provide(RUNNER_TARGET, kept.current);
    services.provide(FILES_BATCHES, kept.parts);
  },
  activate(services) {
    // This config serves now: the runner's next lines run through its pipelines.
    services.require(RUNNER_TARGET).services = services;
  },
  async start(services) {
    if (services.resources.wasKept('files-batches')) return; // already running for the config it was kept from
    await services.require(FILES_BATCHES).runner.resumeAll();
  },
};
