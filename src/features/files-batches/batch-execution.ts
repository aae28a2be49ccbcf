import type { CompiledPipeline } from '../../kernel/engine/pipeline-compiler.js';
import type { HttpEdge } from '../../kernel/http/pipeline-handler.js';
import { abortableWait } from '../../kernel/engine/abortable-wait.js';
import type { Logger } from '../../kernel/observability/logger.js';
import type { SeriesCounter } from '../../kernel/observability/series-metrics.js';
import { PROVIDER_ROUTES } from '../../contract/routes.js';
import type { GatewayFileStore } from './gateway-files.js';
import type { BatchRow, BatchStore, LineRow } from './batch-store.js';
import { readInputFile } from './input-file.js';
import { runLine } from './line-runner.js';
import { writeOutputFiles } from './output-files.js';

export interface ExecutionDeps {
  batches: BatchStore;
  files: GatewayFileStore;
  /** The HTTP edge: each line runs through its route's compiled pipeline, in a context it makes. */
  edge: HttpEdge;
  logger: Logger;
  /** Counts each line's outcome (gateway_batch_lines_total{status}). */
  lines?: SeriesCounter;
  /** Lines of one batch in flight at once. */
  concurrency: number;
  /** How many times one line waits out a 429 before its 429 is its result. */
  maxWaits: number;
  /** Longest wait for one 429, in ms. */
  maxWaitMs: number;
  /** What happens to a line found in flight after a crash: recorded as failed, or sent again. */
  interrupted: 'fail' | 'resend';
  /** This runner's id: its claims on lines (and on the batch, for the one-writer steps) carry it. */
  runner: string;
  /** How long a claim lasts without renewal. */
  leaseMs: number;
  /** One process alone uses the store (SQLite outside a cluster): every line found `sending` at start-up was interrupted. */
  exclusive: boolean;
}

const PAGE = 200;

export const INTERRUPTED_ERROR = {
  code: 'batch_line_interrupted',
  message: 'The gateway stopped while this request was in flight and could not record its answer; it is not sent again, since the provider may already have run it.',
};

/**
 * Runs one gateway batch from wherever its durable state says it is: validating (reads the
 * input file into per-line rows), in_progress (claims pending lines and sends them with bounded
 * concurrency, each result recorded with the counters in one transaction), finalizing (writes
 * the output and error files), then completed; or cancelling -> cancelled. Several runners (the
 * workers of a cluster, instances on one PostgreSQL) share the lines of one batch: each claims
 * only as many as it can send at once. Reading the input file and writing the output files are
 * done by one runner, which holds the batch's claim meanwhile. A 429 puts the line back to
 * pending and pauses this runner's sending for the Retry-After the provider asked for.
 */
export class BatchExecution {
  private readonly stopSignal = new AbortController();
  private readonly cancelSignal = new AbortController();
  /** Aborts the requests in flight (shutdown past its grace period). */
  private readonly requestAbort = new AbortController();
  private readonly inFlight = new Map<number, Promise<void>>();
  private pauseUntil = 0;
  /** This runner holds the batch's claim (reading the input, writing the output): renewed by the runner's tick. */
  holdsBatch = false;

  constructor(
    readonly batchId: string,
    private readonly headers: Record<string, string>,
    private readonly deps: ExecutionDeps,
  ) {}

  get stopped(): boolean {
    return this.stopSignal.signal.aborted;
  }

  /** Stops sending lines; lines in flight finish (cancelled -> cancelled). */
  cancel(): void {
    this.cancelSignal.abort();
  }

  /** Shutdown: no new lines; those in flight get `graceMs`, then are aborted and left `sending`. */
  async stop(graceMs: number): Promise<void> {
    this.stopSignal.abort();
    const pending = Promise.all(this.inFlight.values());
    const timer = setTimeout(() => this.requestAbort.abort(), graceMs);
    await pending;
    clearTimeout(timer);
  }

  async run(): Promise<void> {
    let batch = await this.deps.batches.byId(this.batchId);
    if (!batch) return;
    if (batch.status === 'validating') {
      await this.withBatchClaim(() => this.validate(batch!));
      batch = (await this.deps.batches.byId(this.batchId))!;
    }
    if (batch.status === 'in_progress' || batch.status === 'cancelling') {
      await this.settleInterrupted();
      if (batch.status === 'in_progress') await this.sendLines();
      if (this.stopped) return;
      batch = (await this.deps.batches.byId(this.batchId))!;
      if (batch.status === 'in_progress') {
        if (this.cancelSignal.signal.aborted) return;
        // Lines still out at another runner: that runner finishes the batch after its last line.
        if ((await this.deps.batches.unfinishedLines(this.batchId)) > 0) return;
        await this.deps.batches.transition(this.batchId, ['in_progress'], 'finalizing');
        batch = (await this.deps.batches.byId(this.batchId))!;
      }
    }
    if (this.stopped) return;
    if (batch.status === 'finalizing' || batch.status === 'cancelling') {
      const current = batch;
      await this.withBatchClaim(async () => {
        // A cancelled batch is written once no runner sends its lines any more.
        if (current.status === 'cancelling' && (await this.deps.batches.sendingElsewhere(this.batchId, this.deps.runner, Date.now())) > 0) return;
        const fresh = (await this.deps.batches.byId(this.batchId))!;
        if (fresh.status === current.status) await this.finish(fresh);
      });
    }
  }

  /** Runs `step` holding the batch's claim; another runner holding it does the step instead. */
  private async withBatchClaim(step: () => Promise<void>): Promise<void> {
    const { batches, runner, leaseMs, exclusive } = this.deps;
    if (!(await batches.claim(this.batchId, runner, leaseMs, exclusive))) return;
    this.holdsBatch = true;
    try {
      await step();
    } finally {
      this.holdsBatch = false;
      await batches.release(this.batchId, runner).catch(() => undefined);
    }
  }

  /** Writes the output files and ends the batch (completed, or cancelled). */
  private async finish(batch: BatchRow): Promise<void> {
    const { outputFileId, errorFileId } = await writeOutputFiles(batch, this.deps.batches, this.deps.files);
    const final = batch.status === 'cancelling' ? 'cancelled' : 'completed';
    await this.deps.batches.transition(this.batchId, [batch.status], final, { output_file_id: outputFileId, error_file_id: errorFileId });
    this.deps.logger.info({ batch: this.batchId, status: final }, 'gateway batch finished');
  }

  private async validate(batch: BatchRow): Promise<void> {
    const { batches, files } = this.deps;
    await batches.deleteLines(batch.id);
    const file = await files.get(batch.scope, batch.input_file_id);
    if (!file) {
      await this.failValidation([{ code: 'invalid_file', message: `The input file ${batch.input_file_id} does not exist.`, param: 'input_file_id', line: null }]);
      return;
    }
    const { count, problems } = await readInputFile(files.pathOf(file.id), batch.endpoint, (lines) => batches.insertLines(batch.id, lines));
    if (problems.length) {
      await batches.deleteLines(batch.id);
      await this.failValidation(problems);
      return;
    }
    await batches.transition(batch.id, ['validating'], 'in_progress', { total_count: count });
  }

  private async failValidation(problems: unknown[]): Promise<void> {
    await this.deps.batches.transition(this.batchId, ['validating'], 'failed', { errors: JSON.stringify({ object: 'list', data: problems }) });
    this.deps.logger.info({ batch: this.batchId, problems: problems.length }, 'gateway batch failed validation');
  }

  /**
   * Lines left `sending` by a runner that stopped (its process died, or it was stopped past its
   * grace period): their answers were never recorded. Outside a cluster on SQLite every such
   * line was interrupted; otherwise only those whose claim ran out.
   */
  private async settleInterrupted(): Promise<void> {
    const { batches } = this.deps;
    const before = this.deps.exclusive ? Number.MAX_SAFE_INTEGER : Date.now();
    let skip = 0;
    for (;;) {
      const lines = await batches.lapsedLines(this.batchId, before, PAGE + skip);
      const fresh = lines.slice(skip);
      if (!fresh.length) return;
      for (const line of fresh) {
        const settled =
          this.deps.interrupted === 'resend'
            ? await batches.resendLapsed(line, before)
            : await batches.recordResult(
                this.batchId,
                Number(line.line_no),
                { ok: false, resultId: `batch_req_interrupted_${line.line_no}`, statusCode: null, requestId: null, response: null, error: INTERRUPTED_ERROR },
                line.runner,
              );
        // A line its runner renewed meanwhile stays in the list: passed over from now on.
        if (!settled) skip++;
      }
    }
  }

  private async sendLines(): Promise<void> {
    const batch = (await this.deps.batches.byId(this.batchId))!;
    const route = PROVIDER_ROUTES.find((r) => r.key === `POST ${batch.endpoint}`)!;
    const pipeline = this.deps.edge.pipelineFor(route.key)!;
    const stopOrCancel = AbortSignal.any([this.stopSignal.signal, this.cancelSignal.signal]);
    const settleOne = () => Promise.race(this.inFlight.values());
    while (!stopOrCancel.aborted) {
      const wait = this.pauseUntil - Date.now();
      if (wait > 0) {
        await abortableWait(wait, stopOrCancel);
        continue;
      }
      const free = this.deps.concurrency - this.inFlight.size;
      if (free <= 0) {
        await settleOne();
        continue;
      }
      // Only as many lines as go out now: the rest stay free for the other runners of the batch.
      const lines = await this.deps.batches.claimLines(this.batchId, this.deps.runner, free, this.deps.leaseMs);
      if (!lines.length) {
        if (this.inFlight.size === 0) break;
        await settleOne();
        continue;
      }
      for (const line of lines) this.launch(line, pipeline, route);
    }
    await Promise.all(this.inFlight.values());
  }

  private launch(line: LineRow, pipeline: CompiledPipeline, route: (typeof PROVIDER_ROUTES)[number]): void {
    const { batches, logger, runner } = this.deps;
    const lineNo = Number(line.line_no);
    const work = (async () => {
      const outcome = await runLine(this.deps.edge, pipeline, route, this.headers, line.body, this.requestAbort.signal);
      if (this.requestAbort.signal.aborted) return; // shutdown cut it: left `sending`, settled once its claim runs out
      if (outcome.rateLimited && Number(line.waits) < this.deps.maxWaits) {
        await batches.backToPending(this.batchId, lineNo, runner);
        const waitMs = Math.min(this.deps.maxWaitMs, Math.max(250, (outcome.retryAfter ?? 1) * 1000));
        this.pauseUntil = Math.max(this.pauseUntil, Date.now() + waitMs);
        this.deps.lines?.inc(['rate_limited']);
        return;
      }
      if (await batches.recordResult(this.batchId, lineNo, outcome.result, runner)) this.deps.lines?.inc([outcome.result.ok ? 'succeeded' : 'failed']);
      else logger.warn({ batch: this.batchId, line: lineNo }, 'gateway batch line answered after its claim ran out; the answer is not recorded');
    })()
      .catch((err) => logger.error({ batch: this.batchId, line: lineNo, err: (err as Error).message }, 'gateway batch line failed to run'))
      .finally(() => this.inFlight.delete(lineNo));
    this.inFlight.set(lineNo, work);
  }
}
