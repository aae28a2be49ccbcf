import { randomUUID } from 'node:crypto';
import { BatchExecution } from './batch-execution.js';
import { writeOutputFiles } from './output-files.js';
/**
 * Runs the gateway's batches in this process: starts new ones, resumes unfinished ones at
 * start-up (with their sealed credentials, or once their owner calls again when the gateway
 * has no secret to seal them with), renews its claim on each while it runs (several instances
 * on one PostgreSQL store never run the same batch), notices cancels made elsewhere, and
 * stops cleanly at shutdown.
 */
export class BatchRunner {
    opts;
    id = randomUUID();
    executions = new Map();
    runs = new Set();
    /** Credentials of batches started by this process (always), kept in memory only. */
    memory = new Map();
    /** Unfinished batches waiting for their owner's credentials: id -> scope. */
    waiting = new Map();
    timer;
    stopping = false;
    constructor(opts) {
        this.opts = opts;
    }
    /** Picks up every unfinished batch (at start-up) and begins renewing claims. */
    async resumeAll() {
        const interval = Math.max(250, Math.floor(this.opts.leaseMs / 3));
        this.timer = setInterval(() => void this.tick(), interval);
        this.timer.unref();
        for (const row of await this.opts.batches.active()) {
            const headers = this.opts.vault.open(row.credentials) ?? this.memory.get(row.id);
            if (headers)
                await this.start(row.id, headers);
            else {
                this.waiting.set(row.id, row.scope);
                this.opts.logger.warn({ batch: row.id }, 'gateway batch waits for its owner to call again with the provider key (no GATEWAY_SECRET_KEY to keep it)');
            }
        }
    }
    /** Starts (or resumes) a batch in this process, if no other runner holds it. */
    async start(batchId, headers) {
        if (this.stopping || this.executions.has(batchId))
            return;
        this.memory.set(batchId, headers);
        this.waiting.delete(batchId);
        if (!(await this.opts.batches.claim(batchId, this.id, this.opts.leaseMs, this.opts.exclusive)))
            return;
        const execution = new BatchExecution(batchId, headers, this.opts);
        this.executions.set(batchId, execution);
        const run = execution
            .run()
            .catch((err) => this.opts.logger.error({ batch: batchId, err: err.message }, 'gateway batch stopped on an error'))
            .finally(async () => {
            this.executions.delete(batchId);
            if (!execution.stopped)
                this.memory.delete(batchId);
            await this.opts.batches.release(batchId, this.id).catch(() => undefined);
        });
        this.runs.add(run);
        void run.finally(() => this.runs.delete(run));
    }
    /** A caller with this scope's key called: batches waiting for it resume. */
    async offer(scope, headers) {
        for (const [id, owner] of [...this.waiting])
            if (owner === scope)
                await this.start(id, headers);
    }
    isRunning(batchId) {
        return this.executions.has(batchId);
    }
    /**
     * After the batch was moved to `cancelling`: the running execution stops sending lines and
     * finishes; a batch nobody runs (waiting for its key, or its runner gone) is finished here.
     */
    async cancel(row) {
        const execution = this.executions.get(row.id);
        if (execution) {
            execution.cancel();
            return;
        }
        const heldElsewhere = !this.opts.exclusive && row.runner && row.runner !== this.id && (row.lease_until ?? 0) > Date.now();
        if (heldElsewhere)
            return;
        this.waiting.delete(row.id);
        const current = (await this.opts.batches.byId(row.id));
        if (current.status !== 'cancelling')
            return;
        const { outputFileId, errorFileId } = await writeOutputFiles(current, this.opts.batches, this.opts.files);
        await this.opts.batches.transition(row.id, ['cancelling'], 'cancelled', { output_file_id: outputFileId, error_file_id: errorFileId });
    }
    /** Renews claims; a cancel made through another instance reaches the execution here. */
    async tick() {
        if (!this.opts.exclusive && !this.stopping)
            await this.adoptOrphans().catch(() => undefined);
        for (const [id, execution] of this.executions) {
            try {
                const held = await this.opts.batches.claim(id, this.id, this.opts.leaseMs, this.opts.exclusive);
                if (!held) {
                    await execution.stop(0);
                    continue;
                }
                const row = await this.opts.batches.byId(id);
                if (row?.status === 'cancelling')
                    execution.cancel();
            }
            catch (err) {
                this.opts.logger.warn({ batch: id, err: err.message }, 'could not renew the claim on a gateway batch');
            }
        }
    }
    /** Shared store: batches whose runner stopped renewing its lease (an instance died) are taken over. */
    async adoptOrphans() {
        for (const row of await this.opts.batches.active()) {
            if (this.executions.has(row.id) || (row.lease_until ?? 0) > Date.now())
                continue;
            const headers = this.opts.vault.open(row.credentials) ?? this.memory.get(row.id);
            if (headers)
                await this.start(row.id, headers);
            else
                this.waiting.set(row.id, row.scope);
        }
    }
    /** Shutdown: stops every execution (lines in flight get `graceMs`). */
    async stop(graceMs) {
        this.stopping = true;
        if (this.timer)
            clearInterval(this.timer);
        await Promise.all([...this.executions.values()].map((e) => e.stop(graceMs)));
        await Promise.all([...this.runs]);
    }
}
//# sourceMappingURL=batch-runner.js.map