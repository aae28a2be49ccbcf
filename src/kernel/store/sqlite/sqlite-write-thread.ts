import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { SqlBatchWriter, SqlStatement } from '../sql-store.js';
import { bindableBatch } from './bindable.js';

/**
 * The thread's own code (plain CommonJS, so that it runs the same from dist/ and from the
 * sources under test): one better-sqlite3 connection to the store's file; each message a batch
 * of statements (their parameters made bindable before they are posted: bindable.ts) run in one
 * BEGIN IMMEDIATE transaction, answered with its id.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { timeout: workerData.busyTimeoutMs });
for (const pragma of workerData.pragmas) db.pragma(pragma);
const statements = new Map();
function prepared(sql) {
  let stmt = statements.get(sql);
  if (!stmt) {
    if (statements.size >= 256) statements.clear();
    stmt = db.prepare(sql);
    statements.set(sql, stmt);
  }
  return stmt;
}
const runBatch = db.transaction((batch) => {
  for (const [sql, params] of batch) prepared(sql).run(params);
});
parentPort.on('message', (message) => {
  if (message.close) {
    db.close();
    parentPort.postMessage({ id: message.id, ok: true });
    return;
  }
  try {
    runBatch.immediate(message.batch);
    parentPort.postMessage({ id: message.id, ok: true });
  } catch (err) {
    parentPort.postMessage({ id: message.id, ok: false, message: String((err && err.message) || err), code: err && err.code });
  }
});
`;

const driver = createRequire(import.meta.url).resolve('better-sqlite3');

/**
 * Settings of every connection to the store's file, the store's own and the write thread's:
 * writes durable at WAL checkpoints; statement journals (a multi-row INSERT inside a transaction
 * opens one) and temporary tables in memory, not a file created, written and unlinked each time.
 */
export const CONNECTION_PRAGMAS = ['synchronous = NORMAL', 'temp_store = MEMORY'] as const;

interface Pending {
  resolve(): void;
  reject(err: Error): void;
}

interface Answer {
  id: number;
  ok: boolean;
  message?: string;
  code?: string;
}

/**
 * Writes off the event loop: a worker thread with its own connection to the SQLite file runs
 * batches of statements, each in one transaction (all of a batch lands, or none). For writes
 * nothing on the request path reads back at once (the usage ledger): the B-tree work of their
 * inserts leaves the thread that serves requests. The thread starts on the first batch, keeps
 * the process alive only while a batch is under way, and is started again after it dies (the
 * batches it held fail, and their writer retries them).
 */
export class SqliteWriteThread implements SqlBatchWriter {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private seq = 0;

  constructor(
    private readonly path: string,
    private readonly busyTimeoutMs: number,
  ) {}

  run(batch: readonly SqlStatement[]): Promise<void> {
    const worker = this.worker ?? this.start();
    return this.send(worker, { batch: bindableBatch(batch) });
  }

  /** Lets the batches under way finish, then closes the thread's connection and ends it. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    try {
      await this.send(worker, { close: true });
    } catch {
      // it died meanwhile: nothing is left to close
    }
    this.worker = undefined;
    await worker.terminate();
  }

  private send(worker: Worker, message: { batch: readonly SqlStatement[] } | { close: true }): Promise<void> {
    const id = ++this.seq;
    return new Promise<void>((resolve, reject) => {
      if (this.pending.size === 0) worker.ref();
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, ...message });
    });
  }

  private start(): Worker {
    const worker = new Worker(THREAD_SOURCE, { eval: true, workerData: { driver, path: this.path, busyTimeoutMs: this.busyTimeoutMs, pragmas: CONNECTION_PRAGMAS } });
    worker.unref();
    worker.on('message', (answer: Answer) => {
      const pending = this.pending.get(answer.id);
      if (!pending) return;
      this.pending.delete(answer.id);
      if (this.pending.size === 0) worker.unref();
      if (answer.ok) pending.resolve();
      else pending.reject(Object.assign(new Error(answer.message ?? 'SQLite write failed'), { code: answer.code }));
    });
    worker.on('error', (err) => this.stopped(worker, err));
    worker.on('exit', (code) => this.stopped(worker, new Error(`the SQLite write thread ended (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }

  /** The thread died: what it held fails (the writer keeps those rows and tries again on a new thread). */
  private stopped(worker: Worker, err: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    const failed = [...this.pending.values()];
    this.pending.clear();
    for (const p of failed) p.reject(err);
  }
}
