import type { Migration } from '../../kernel/store/sql-store.js';

/** Tables of the files the gateway keeps and of the batches it runs (portable SQL). */
export const FILES_BATCHES_MIGRATIONS: Migration[] = [
  {
    id: 'files-batches-001-create',
    statements: [
      `CREATE TABLE IF NOT EXISTS gateway_files (
        id TEXT PRIMARY KEY,
        scope TEXT NOT NULL,
        provider TEXT NOT NULL,
        filename TEXT NOT NULL,
        purpose TEXT NOT NULL,
        bytes BIGINT NOT NULL,
        created_ms BIGINT NOT NULL
      )`,
      'CREATE INDEX IF NOT EXISTS gateway_files_by_scope ON gateway_files (scope, created_ms)',
      `CREATE TABLE IF NOT EXISTS gateway_batches (
        id TEXT PRIMARY KEY,
        scope TEXT NOT NULL,
        provider TEXT NOT NULL,
        endpoint TEXT NOT NULL,
        input_file_id TEXT NOT NULL,
        completion_window TEXT NOT NULL,
        status TEXT NOT NULL,
        metadata TEXT,
        errors TEXT,
        output_file_id TEXT,
        error_file_id TEXT,
        created_ms BIGINT NOT NULL,
        in_progress_at BIGINT,
        finalizing_at BIGINT,
        completed_at BIGINT,
        failed_at BIGINT,
        cancelling_at BIGINT,
        cancelled_at BIGINT,
        expires_at BIGINT,
        total_count INTEGER NOT NULL DEFAULT 0,
        completed_count INTEGER NOT NULL DEFAULT 0,
        failed_count INTEGER NOT NULL DEFAULT 0,
        credentials TEXT,
        runner TEXT,
        lease_until BIGINT
      )`,
      'CREATE INDEX IF NOT EXISTS gateway_batches_by_scope ON gateway_batches (scope, created_ms)',
      'CREATE INDEX IF NOT EXISTS gateway_batches_by_status ON gateway_batches (status)',
      `CREATE TABLE IF NOT EXISTS gateway_batch_lines (
        batch_id TEXT NOT NULL,
        line_no INTEGER NOT NULL,
        custom_id TEXT NOT NULL,
        body TEXT NOT NULL,
        state TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        waits INTEGER NOT NULL DEFAULT 0,
        result_id TEXT,
        status_code INTEGER,
        request_id TEXT,
        response TEXT,
        error TEXT,
        PRIMARY KEY (batch_id, line_no)
      )`,
      'CREATE INDEX IF NOT EXISTS gateway_batch_lines_by_state ON gateway_batch_lines (batch_id, state, line_no)',
    ],
  },
  {
    // Lines are claimed by whichever runner takes them (several workers or instances share one
    // batch): the claiming runner and how long its claim lasts without renewal.
    id: 'files-batches-002-line-claims',
    statements: ['ALTER TABLE gateway_batch_lines ADD COLUMN runner TEXT', 'ALTER TABLE gateway_batch_lines ADD COLUMN claimed_until BIGINT'],
  },
];
