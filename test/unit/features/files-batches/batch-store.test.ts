import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { SqlStore } from '../../../../src/kernel/store/sql-store.js';
import { SqliteStore } from '../../../../src/kernel/store/sqlite/sqlite-store.js';
import { PostgresStore } from '../../../../src/kernel/store/postgres/postgres-store.js';
import { FILES_BATCHES_MIGRATIONS } from '../../../../src/features/files-batches/migrations.js';
import { BatchStore, batchObject } from '../../../../src/features/files-batches/batch-store.js';
import { GatewayFileStore } from '../../../../src/features/files-batches/gateway-files.js';
import { writeOutputFiles } from '../../../../src/features/files-batches/output-files.js';
import { CredentialVault } from '../../../../src/features/files-batches/credential-vault.js';

const PG_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

function suite(name: string, make: (dir: string) => Promise<{ store: SqlStore; cleanup: () => Promise<void> }>) {
  describe(`gateway files and batches on ${name}`, () => {
    let dir: string;
    let store: SqlStore;
    let cleanup: () => Promise<void>;
    let files: GatewayFileStore;
    let batches: BatchStore;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'gw-bs-'));
      ({ store, cleanup } = await make(dir));
      await store.migrate(FILES_BATCHES_MIGRATIONS);
      files = new GatewayFileStore(store, join(dir, 'files'));
      batches = new BatchStore(store);
    });
    afterAll(async () => {
      await store.close();
      await cleanup();
      rmSync(dir, { recursive: true, force: true });
    });

    it('records files per scope and pages them newest first', async () => {
      for (let i = 0; i < 3; i++) {
        const temp = files.tempPath();
        writeFileSync(temp, `content ${i}`);
        await files.add({ id: `file-gw-${i}`, scope: 'owner', provider: 'deepseek', filename: `f${i}.jsonl`, purpose: 'batch', created_ms: 1000 + i }, temp);
      }
      const page = await files.list('owner', 2);
      expect(page.rows.map((f) => f.id)).toEqual(['file-gw-2', 'file-gw-1']);
      expect(page.hasMore).toBe(true);
      expect((await files.list('owner', 2, 'file-gw-1')).rows.map((f) => f.id)).toEqual(['file-gw-0']);
      expect((await files.list('someone-else', 10)).rows).toEqual([]);
      expect(await files.get('owner', 'file-gw-0')).toMatchObject({ bytes: 9, created_ms: 1000 });
      expect(await files.delete('someone-else', 'file-gw-0')).toBe(false);
      expect(await files.delete('owner', 'file-gw-0')).toBe(true);
    });

    it('moves a batch through its states and records line results with the counters', async () => {
      const row = await batches.create({
        id: 'batch-gw-1',
        scope: 'owner',
        provider: 'deepseek',
        endpoint: '/v1/chat/completions',
        input_file_id: 'file-gw-1',
        completion_window: '24h',
        metadata: '{"a":"b"}',
        credentials: null,
      });
      expect(batchObject(row)).toMatchObject({ status: 'validating', metadata: { a: 'b' }, request_counts: { total: 0, completed: 0, failed: 0 } });
      await batches.insertLines(
        'batch-gw-1',
        [1, 2, 3].map((n) => ({ line_no: n, custom_id: `c${n}`, body: '{}' })),
      );
      expect(await batches.transition('batch-gw-1', ['validating'], 'in_progress', { total_count: 3 })).toBe(true);
      expect(await batches.transition('batch-gw-1', ['validating'], 'in_progress')).toBe(false);
      const [first, second] = await batches.claimLines('batch-gw-1', 'runner-a', 2, 60_000);
      expect([Number(first!.line_no), Number(second!.line_no)]).toEqual([1, 2]);
      expect(first).toMatchObject({ state: 'sending', runner: 'runner-a' });
      expect(await batches.recordResult('batch-gw-1', 1, { ok: true, resultId: 'r1', statusCode: 200, requestId: 'q1', response: '{"x":\n1}', error: null }, 'runner-a')).toBe(
        true,
      );
      // Recorded once: a second answer for the same line changes nothing.
      expect(await batches.recordResult('batch-gw-1', 1, { ok: true, resultId: 'r1', statusCode: 200, requestId: 'q1', response: '{}', error: null }, 'runner-a')).toBe(false);
      // Only the runner holding the claim records.
      const failure = {
        ok: false,
        resultId: 'r2',
        statusCode: 400,
        requestId: 'q2',
        response: '{"status":"failure"}',
        error: { code: 'missing_required_parameter', message: 'm' },
      };
      expect(await batches.recordResult('batch-gw-1', 2, failure, 'runner-b')).toBe(false);
      expect(await batches.recordResult('batch-gw-1', 2, failure, 'runner-a')).toBe(true);
      const b = (await batches.byId('batch-gw-1'))!;
      expect(batchObject(b).request_counts).toEqual({ total: 3, completed: 1, failed: 1 });
      expect((await batches.lines('batch-gw-1', ['pending'], 0, 10)).map((l) => Number(l.line_no))).toEqual([3]);
      await batches.transition('batch-gw-1', ['in_progress'], 'finalizing');
      const { outputFileId, errorFileId } = await writeOutputFiles((await batches.byId('batch-gw-1'))!, batches, files);
      expect(outputFileId).toBe('file-gw-1-output');
      expect(errorFileId).toBe('file-gw-1-errors');
      const out = (await import('node:fs')).readFileSync(files.pathOf(outputFileId), 'utf8');
      expect(out).toBe('{"id":"r1","custom_id":"c1","response":{"status_code":200,"request_id":"q1","body":{"x":1}},"error":null}\n');
    });

    it('gives each pending line to one runner when several claim at once (SKIP LOCKED on PostgreSQL)', async () => {
      await batches.create({
        id: 'batch-gw-2',
        scope: 'owner',
        provider: 'deepseek',
        endpoint: '/v1/chat/completions',
        input_file_id: 'f',
        completion_window: '24h',
        metadata: null,
        credentials: null,
      });
      await batches.insertLines(
        'batch-gw-2',
        Array.from({ length: 60 }, (_, i) => ({ line_no: i + 1, custom_id: `c${i + 1}`, body: '{}' })),
      );
      const runners = ['r1', 'r2', 'r3', 'r4'];
      const taken = new Map<number, string>();
      for (let round = 0; round < 6; round++) {
        const claims = await Promise.all(runners.map((r) => batches.claimLines('batch-gw-2', r, 3, 60_000)));
        claims.forEach((lines, i) => {
          for (const line of lines) {
            expect(taken.has(Number(line.line_no))).toBe(false);
            taken.set(Number(line.line_no), runners[i]!);
          }
        });
      }
      expect([...taken.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
      expect(new Set(taken.values()).size).toBe(4);
      expect(await batches.claimLines('batch-gw-2', 'r1', 3, 60_000)).toEqual([]);
      expect(await batches.unfinishedLines('batch-gw-2')).toBe(60);
      expect(await batches.sendingElsewhere('batch-gw-2', 'r1', Date.now())).toBe(45);
    });

    it('takes over the lines of a runner whose claim ran out, unless it renewed', async () => {
      await batches.create({
        id: 'batch-gw-3',
        scope: 'owner',
        provider: 'deepseek',
        endpoint: '/v1/chat/completions',
        input_file_id: 'f',
        completion_window: '24h',
        metadata: null,
        credentials: null,
      });
      await batches.insertLines(
        'batch-gw-3',
        [1, 2].map((n) => ({ line_no: n, custom_id: `c${n}`, body: '{}' })),
      );
      await batches.claimLines('batch-gw-3', 'gone', 1, 10);
      await batches.claimLines('batch-gw-3', 'alive', 1, 10);
      await batches.renewLines('batch-gw-3', 'alive', 60_000);
      const before = Date.now() + 20;
      const lapsed = await batches.lapsedLines('batch-gw-3', before, 10);
      expect(lapsed.map((l) => [Number(l.line_no), l.runner])).toEqual([[1, 'gone']]);
      expect(await batches.resendLapsed(lapsed[0]!, before)).toBe(true);
      expect(await batches.resendLapsed(lapsed[0]!, before)).toBe(false);
      // Back to pending: the next claim takes it, with its earlier attempt counted.
      const [again] = await batches.claimLines('batch-gw-3', 'alive', 5, 60_000);
      expect(again).toMatchObject({ runner: 'alive' });
      expect([Number(again!.line_no), Number(again!.attempts)]).toEqual([1, 2]);
      // A 429 puts it back for anyone.
      await batches.backToPending('batch-gw-3', 1, 'alive');
      expect((await batches.claimLines('batch-gw-3', 'other', 5, 60_000)).map((l) => [Number(l.line_no), Number(l.waits)])).toEqual([[1, 1]]);
    });

    it('lets one runner hold a batch until its lease runs out', async () => {
      expect(await batches.claim('batch-gw-1', 'runner-a', 60_000, false)).toBe(true);
      expect(await batches.claim('batch-gw-1', 'runner-b', 60_000, false)).toBe(false);
      expect(await batches.claim('batch-gw-1', 'runner-a', 60_000, false)).toBe(true);
      await batches.update('batch-gw-1', { lease_until: Date.now() - 1 });
      expect(await batches.claim('batch-gw-1', 'runner-b', 60_000, false)).toBe(true);
    });
  });
}

suite('sqlite', async (dir) => ({ store: new SqliteStore(join(dir, 'gw.db')), cleanup: async () => undefined }));

suite('postgres', async () => {
  const schema = `batches_test_${randomBytes(4).toString('hex')}`;
  return {
    store: new PostgresStore(PG_URL, schema),
    cleanup: async () => {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
});

describe('credential vault', () => {
  it('seals and opens with the same secret only', () => {
    const vault = new CredentialVault('secret-one');
    const sealed = vault.seal({ authorization: 'Bearer sk-abc' })!;
    expect(sealed).not.toContain('sk-abc');
    expect(vault.open(sealed)).toEqual({ authorization: 'Bearer sk-abc' });
    expect(new CredentialVault('secret-two').open(sealed)).toBeUndefined();
    expect(new CredentialVault(undefined).seal({ a: 'b' })).toBeNull();
  });
});
