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
}

const PAGE = 200;

export const INTERRUPTED_ERROR = {
  code: 'batch_line_interrupted',
  message: 'The gateway stopped while this request was in flight and could not record its answer; it is not sent again, since the provider may already have run it.',
};

/**
 * Runs one gateway batch from wherever its durable state says it is: validating (reads the
 * input file into per-line rows), in_progress (sends pending lines with bounded concurrency,
 * each line marked `sending` before it goes and its result recorded with the counters in one
 * transaction), finalizing (writes the output and error files), then completed; or
 * cancelling -> cancelled. A 429 puts the line back to pending and pauses the whole batch
 * for the Retry-After the provider asked for.
 */
export class BatchExecution {
  private readonly stopSignal = new AbortController();
  private readonly cancelSignal = new AbortController();
  /** Aborts the requests in flight (shutdown past its grace period). */
  private readonly requestAbort = new AbortController();
  private readonly inFlight = new Map<number, Promise<void>>();
  private pauseUntil = 0;

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
      await this.validate(batch);
      batch = (await this.deps.batches.byId(this.batchId))!;
    }
    if (batch.status === 'in_progress' || batch.status === 'cancelling') {
      await this.settleInterrupted();
      if (batch.status === 'in_progress') await this.sendLines();
      if (this.stopped) return;
      batch = (await this.deps.batches.byId(this.batchId))!;
      if (batch.status === 'in_progress') {
        if (this.cancelSignal.signal.aborted) return;
        await this.deps.batches.transition(this.batchId, ['in_progress'], 'finalizing');
        batch = (await this.deps.batches.byId(this.batchId))!;
      }
    }
    if (this.stopped) return;
    if (batch.status === 'finalizing' || batch.status === 'cancelling') await this.finish(batch);
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

  /** Lines left `sending` by a process that died: their answers were never recorded. */
  private async settleInterrupted(): Promise<void> {
    const { batches } = this.deps;
    for (;;) {
      const lines = await batches.lines(this.batchId, ['sending'], 0, PAGE);
      if (!lines.length) return;
      for (const line of lines) {
        if (this.deps.interrupted === 'resend') {
          await batches.store.execute(`UPDATE gateway_batch_lines SET state = 'pending' WHERE batch_id = ? AND line_no = ? AND state = 'sending'`, [this.batchId, line.line_no]);
        } else {
          await batches.recordResult(this.batchId, Number(line.line_no), {
            ok: false,
            resultId: `batch_req_interrupted_${line.line_no}`,
            statusCode: null,
            requestId: null,
            response: null,
            error: INTERRUPTED_ERROR,
          });
        }
      }
    }
  }

  private async sendLines(): Promise<void> {
    const batch = (await this.deps.batches.byId(this.batchId))!;
    const route = PROVIDER_ROUTES.find((r) => r.key === `POST ${batch.endpoint}`)!;
    const pipeline = this.deps.edge.pipelineFor(route.key)!;
    const stopOrCancel = AbortSignal.any([this.stopSignal.signal, this.cancelSignal.signal]);
    const retry: LineRow[] = [];
    let queue: LineRow[] = [];
    let loadedTo = 0;
    let exhausted = false;
    const next = async (): Promise<LineRow | undefined> => {
      if (retry.length) return retry.shift();
      if (!queue.length && !exhausted) {
        queue = await this.deps.batches.lines(this.batchId, ['pending'], loadedTo, PAGE);
        if (queue.length) loadedTo = Number(queue.at(-1)!.line_no);
        else exhausted = true;
      }
      return queue.shift();
    };
    const settleOne = () => Promise.race(this.inFlight.values());
    while (!stopOrCancel.aborted) {
      const wait = this.pauseUntil - Date.now();
      if (wait > 0) {
        await abortableWait(wait, stopOrCancel);
        continue;
      }
      if (this.inFlight.size >= this.deps.concurrency) {
        await settleOne();
        continue;
      }
      const line = await next();
      if (!line) {
        if (this.inFlight.size === 0) break;
        await settleOne();
        continue;
      }
      this.launch(line, pipeline, route, retry);
    }
    await Promise.all(this.inFlight.values());
  }

  private launch(line: LineRow, pipeline: CompiledPipeline, route: (typeof PROVIDER_ROUTES)[number], retry: LineRow[]): void {
    const { batches, logger } = this.deps;
    const lineNo = Number(line.line_no);
    const work = (async () => {
      if (!(await batches.markSending(this.batchId, lineNo))) return;
      const outcome = await runLine(this.deps.edge, pipeline, route, this.headers, line.body, this.requestAbort.signal);
      if (this.requestAbort.signal.aborted) return; // shutdown cut it: left `sending`, settled at the next start
      if (outcome.rateLimited && Number(line.waits) < this.deps.maxWaits) {
        await batches.backToPending(this.batchId, lineNo);
        line.waits = Number(line.waits) + 1;
        const waitMs = Math.min(this.deps.maxWaitMs, Math.max(250, (outcome.retryAfter ?? 1) * 1000));
        this.pauseUntil = Math.max(this.pauseUntil, Date.now() + waitMs);
        retry.push(line);
        this.deps.lines?.inc(['rate_limited']);
        return;
      }
      await batches.recordResult(this.batchId, lineNo, outcome.result);
      this.deps.lines?.inc([outcome.result.ok ? 'succeeded' : 'failed']);
    })()
      .catch((err) => logger.error({ batch: this.batchId, line: lineNo, err: (err as Error).message }, 'gateway batch line failed to run'))
      .finally(() => this.inFlight.delete(lineNo));
    this.inFlight.set(lineNo, work);
  }
}
