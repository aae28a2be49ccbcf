import { randomUUID } from 'node:crypto';
import { ACTIVE_STATUSES, type BatchRow } from './batch-store.js';
import { BatchExecution, type ExecutionDeps } from './batch-execution.js';
import type { CredentialVault } from './credential-vault.js';
import { writeOutputFiles } from './output-files.js';

export interface RunnerOptions extends Omit<ExecutionDeps, 'runner'> {
  vault: CredentialVault;
}

/**
 * Runs the gateway's batches in this process: starts new ones, resumes unfinished ones at
 * start-up (with their sealed credentials, or once their owner calls again when the gateway
 * has no secret to seal them with), renews its claims while it runs, joins batches other runners
 * started (the workers of a cluster and instances on one PostgreSQL share the lines of a batch,
 * each line sent by one of them), takes over lines of a runner that stopped, notices cancels
 * made elsewhere, and stops cleanly at shutdown.
 */
export class BatchRunner {
  readonly id = randomUUID();
  private readonly executions = new Map<string, BatchExecution>();
  private readonly runs = new Set<Promise<void>>();
  /** Credentials of batches started by this process (always), kept in memory only. */
  private readonly memory = new Map<string, Record<string, string>>();
  /** Unfinished batches waiting for their owner's credentials: id -> scope. */
  private readonly waiting = new Map<string, string>();
  private timer?: NodeJS.Timeout;
  private stopping = false;

  constructor(private readonly opts: RunnerOptions) {}

  /** Picks up every unfinished batch (at start-up) and begins renewing claims. */
  async resumeAll(): Promise<void> {
    // Claims are renewed well within their timeout; idle runners look for batches to join every 2 s at most.
    const interval = Math.max(250, Math.min(2000, Math.floor(this.opts.leaseMs / 3)));
    this.timer = setInterval(() => void this.tick(), interval);
    this.timer.unref();
    for (const row of await this.opts.batches.active()) {
      const headers = this.opts.vault.open(row.credentials) ?? this.memory.get(row.id);
      if (headers) await this.start(row.id, headers);
      else {
        this.waiting.set(row.id, row.scope);
        this.opts.logger.warn({ batch: row.id }, 'gateway batch waits for its owner to call again with the provider key (no GATEWAY_SECRET_KEY to keep it)');
      }
    }
  }

  /** Starts (or resumes, or joins) a batch in this process. */
  async start(batchId: string, headers: Record<string, string>): Promise<void> {
    if (this.stopping || this.executions.has(batchId)) return;
    this.memory.set(batchId, headers);
    this.waiting.delete(batchId);
    const execution = new BatchExecution(batchId, headers, { ...this.opts, runner: this.id });
    this.executions.set(batchId, execution);
    const run = execution
      .run()
      .catch((err) => this.opts.logger.error({ batch: batchId, err: (err as Error).message }, 'gateway batch stopped on an error'))
      .finally(async () => {
        this.executions.delete(batchId);
        // Credentials stay while the batch is unfinished: lines another runner drops are taken over.
        const row = await this.opts.batches.byId(batchId).catch(() => undefined);
        if (!execution.stopped && (!row || !ACTIVE_STATUSES.includes(row.status))) this.memory.delete(batchId);
      });
    this.runs.add(run);
    void run.finally(() => this.runs.delete(run));
  }

  /** A caller with this scope's key called: batches waiting for it resume. */
  async offer(scope: string, headers: Record<string, string>): Promise<void> {
    for (const [id, owner] of [...this.waiting]) if (owner === scope) await this.start(id, headers);
  }

  isRunning(batchId: string): boolean {
    return this.executions.has(batchId);
  }

  /**
   * After the batch was moved to `cancelling`: the running execution stops sending lines and
   * finishes; a batch nobody runs (waiting for its key, or its runners gone) is finished here.
   */
  async cancel(row: BatchRow): Promise<void> {
    const execution = this.executions.get(row.id);
    if (execution) {
      execution.cancel();
      return;
    }
    const { batches, exclusive, leaseMs } = this.opts;
    // Another runner still sends lines of it: that runner finishes it once they are answered.
    if (!exclusive && (await batches.sendingElsewhere(row.id, this.id, Date.now())) > 0) return;
    if (!(await batches.claim(row.id, this.id, leaseMs, exclusive))) return;
    try {
      this.waiting.delete(row.id);
      const current = (await batches.byId(row.id))!;
      if (current.status !== 'cancelling') return;
      const { outputFileId, errorFileId } = await writeOutputFiles(current, batches, this.opts.files);
      await batches.transition(row.id, ['cancelling'], 'cancelled', { output_file_id: outputFileId, error_file_id: errorFileId });
    } finally {
      await batches.release(row.id, this.id).catch(() => undefined);
    }
  }

  /** Renews claims; a cancel made through another instance reaches the execution here. */
  private async tick(): Promise<void> {
    if (!this.opts.exclusive && !this.stopping) await this.adoptOrphans().catch(() => undefined);
    for (const [id, execution] of this.executions) {
      try {
        await this.opts.batches.renewLines(id, this.id, this.opts.leaseMs);
        if (execution.holdsBatch && !(await this.opts.batches.claim(id, this.id, this.opts.leaseMs, this.opts.exclusive))) {
          await execution.stop(0);
          continue;
        }
        const row = await this.opts.batches.byId(id);
        if (row?.status === 'cancelling') execution.cancel();
      } catch (err) {
        this.opts.logger.warn({ batch: id, err: (err as Error).message }, 'could not renew the claims on a gateway batch');
      }
    }
  }

  /**
   * Shared store: unfinished batches not running here are joined (lines left to send, lines of
   * a runner that stopped) or finished (a cancel nobody finishes); a step only one runner does
   * (reading the input, writing the output) is left to the runner that holds the batch.
   */
  private async adoptOrphans(): Promise<void> {
    for (const row of await this.opts.batches.active()) {
      if (this.executions.has(row.id)) continue;
      if (row.status !== 'in_progress' && (row.lease_until ?? 0) > Date.now()) continue;
      if (row.status === 'cancelling') {
        await this.cancel(row);
        continue;
      }
      const headers = this.opts.vault.open(row.credentials) ?? this.memory.get(row.id);
      if (headers) await this.start(row.id, headers);
      else this.waiting.set(row.id, row.scope);
    }
  }

  /** Shutdown: stops every execution (lines in flight get `graceMs`). */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.all([...this.executions.values()].map((e) => e.stop(graceMs)));
    await Promise.all([...this.runs]);
  }
}
