import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { BufferedUsageLedger } from '../../../../src/features/governance/metering/buffered-usage-ledger.js';
import { isParts, type StoredEntry } from '../../../../src/features/governance/metering/usage-store.js';
import type { SqlStore } from '../../../../src/kernel/store/sql-store.js';
import { LogCollector } from '../../../helpers/start-gateway.js';
import { usageRow } from '../../../helpers/usage-rows.js';

const noStore = {} as SqlStore;

function ledgerWith(write: (rows: readonly StoredEntry[]) => Promise<void>, options: { batchSize?: number; maxBuffered?: number } = {}) {
  const logs = new LogCollector();
  const logger = pino({ level: 'info' }, logs);
  return { ledger: new BufferedUsageLedger(noStore, logger, { intervalMs: 10, retryMs: 5, write, ...options }), logs };
}

describe('the buffered usage ledger', () => {
  it('writes rows in batches of batchSize, off the caller', async () => {
    const batches: number[] = [];
    const { ledger } = ledgerWith(
      async (rows) => {
        batches.push(rows.length);
      },
      { batchSize: 3 },
    );
    for (let i = 0; i < 7; i++) ledger.record(usageRow(i));
    expect(batches).toEqual([]);
    await ledger.flush();
    expect(batches.reduce((a, b) => a + b, 0)).toBe(7);
    expect(Math.max(...batches)).toBeLessThanOrEqual(3);
    expect(ledger.pending).toBe(0);
  });

  it('rows recorded during a write wait for a whole batch or the interval, not written a few at a time', async () => {
    const batches: string[][] = [];
    let release!: () => void;
    const { ledger } = ledgerWith(
      (rows) => {
        batches.push(rows.map((r) => (isParts(r) ? `parts of ${r.partsOf}` : r.requestId)));
        return batches.length === 1 ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve();
      },
      { batchSize: 3 },
    );
    for (let i = 0; i < 3; i++) ledger.record(usageRow(i));
    await new Promise((done) => setTimeout(done, 5));
    expect(batches).toEqual([['req-0', 'req-1', 'req-2']]);
    // Two rows while the first batch is being written: less than a batch.
    ledger.record(usageRow(3));
    ledger.record(usageRow(4));
    release();
    await new Promise((done) => setImmediate(done));
    await new Promise((done) => setImmediate(done));
    expect(batches).toHaveLength(1);
    expect(ledger.pending).toBe(2);
    // The interval (10 ms here) writes them together.
    await new Promise((done) => setTimeout(done, 40));
    expect(batches).toEqual([
      ['req-0', 'req-1', 'req-2'],
      ['req-3', 'req-4'],
    ]);
    expect(ledger.pending).toBe(0);
  });

  it('a whole batch recorded during a write is written right after it', async () => {
    const batches: number[] = [];
    let release!: () => void;
    const { ledger } = ledgerWith(
      (rows) => {
        batches.push(rows.length);
        return batches.length === 1 ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve();
      },
      { batchSize: 2 },
    );
    ledger.record(usageRow(0));
    ledger.record(usageRow(1));
    await new Promise((done) => setTimeout(done, 5));
    expect(batches).toEqual([2]);
    for (let i = 2; i < 5; i++) ledger.record(usageRow(i));
    release();
    await new Promise((done) => setImmediate(done));
    await new Promise((done) => setImmediate(done));
    // One whole batch went at once; the last row waits for the interval.
    expect(batches).toEqual([2, 2]);
    expect(ledger.pending).toBe(1);
    await ledger.flush();
    expect(batches).toEqual([2, 2, 1]);
  });

  it('keeps rows through failed writes and writes each once when the store is back', async () => {
    const written: string[] = [];
    let failures = 3;
    const { ledger, logs } = ledgerWith(async (rows) => {
      if (failures-- > 0) throw new Error('connection refused');
      written.push(...rows.map((r) => (isParts(r) ? `parts of ${r.partsOf}` : r.requestId)));
    });
    for (let i = 0; i < 5; i++) ledger.record(usageRow(i));
    await ledger.flush(10);
    expect(written).toEqual(['req-0', 'req-1', 'req-2', 'req-3', 'req-4']);
    expect(logs.text).toContain('usage ledger write failed; rows kept, retrying');
  });

  it('flush waits for work expected to record rows (expect, track) before it writes, and counts each end once', async () => {
    const written: string[] = [];
    const { ledger } = ledgerWith(async (rows) => {
      written.push(...rows.map((r) => (isParts(r) ? `parts of ${r.partsOf}` : r.requestId)));
    });
    const ended = ledger.expect();
    let settle!: () => void;
    ledger.track(new Promise<void>((resolve) => (settle = resolve)));
    let flushed = false;
    const flushing = ledger.flush().then(() => (flushed = true));
    await new Promise((done) => setTimeout(done, 20));
    expect(flushed).toBe(false);
    ledger.record(usageRow(1));
    ended();
    // a second call of the same end does not count for the tracked work still under way
    ended();
    await new Promise((done) => setTimeout(done, 20));
    expect(flushed).toBe(false);
    ledger.record(usageRow(2));
    settle();
    await flushing;
    expect(written).toEqual(['req-1', 'req-2']);
  });

  it('bounds the buffer while the store is down: the oldest rows go, with a warning', async () => {
    const { ledger, logs } = ledgerWith(
      async () => {
        throw new Error('down');
      },
      { maxBuffered: 4 },
    );
    for (let i = 0; i < 10; i++) ledger.record(usageRow(i));
    expect(ledger.pending).toBe(4);
    expect(logs.text).toContain('usage ledger buffer full');
    await ledger.flush(2);
    expect(logs.text).toContain('rows could not be written at shutdown');
  });
});
