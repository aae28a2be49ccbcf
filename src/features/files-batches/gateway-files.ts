import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { SqlStore } from '../../kernel/store/sql-store.js';
import { pageAfter, type Page } from './list-page.js';

export const GATEWAY_FILE_PREFIX = 'file-gw-';

export interface StoredFile {
  id: string;
  scope: string;
  provider: string;
  filename: string;
  purpose: string;
  bytes: number;
  created_ms: number;
}

/** OpenAI's file object, as every files route answers it. */
export function fileObject(file: StoredFile) {
  return {
    id: file.id,
    object: 'file' as const,
    bytes: file.bytes,
    created_at: Math.floor(file.created_ms / 1000),
    filename: file.filename,
    purpose: file.purpose,
    status: 'processed',
    status_details: null,
  };
}

export function newFileId(): string {
  return `${GATEWAY_FILE_PREFIX}${randomBytes(12).toString('hex')}`;
}

/**
 * Files the gateway keeps itself (inputs and outputs of gateway-run batches, uploads for
 * providers without a files API): bytes under storage.filesDir, one file per id; metadata in
 * the store. Every lookup is scoped (provider + hash of the provider key), so a caller sees
 * only the files uploaded with its own key.
 */
export class GatewayFileStore {
  constructor(
    private readonly store: SqlStore,
    readonly dir: string,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  pathOf(id: string): string {
    return join(this.dir, id);
  }

  /** Where an upload streams before it is known to be whole. */
  tempPath(): string {
    return join(this.dir, `.upload-${randomBytes(8).toString('hex')}`);
  }

  /** Moves a finished upload (or a written output) into place and records it. */
  async add(file: Omit<StoredFile, 'bytes' | 'created_ms'> & { created_ms?: number }, fromPath: string): Promise<StoredFile> {
    const path = this.pathOf(file.id);
    if (fromPath !== path) await rename(fromPath, path);
    const bytes = (await stat(path)).size;
    const row: StoredFile = { ...file, bytes, created_ms: file.created_ms ?? Date.now() };
    await this.store.execute(
      `INSERT INTO gateway_files (id, scope, provider, filename, purpose, bytes, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET bytes = excluded.bytes, filename = excluded.filename`,
      [row.id, row.scope, row.provider, row.filename, row.purpose, row.bytes, row.created_ms],
    );
    return row;
  }

  async get(scope: string, id: string): Promise<StoredFile | undefined> {
    const rows = await this.store.query<StoredFile>('SELECT * FROM gateway_files WHERE id = ? AND scope = ?', [id, scope]);
    return rows[0] ? normalize(rows[0]) : undefined;
  }

  /** Newest first, `limit` after the file `after`. */
  async list(scope: string, limit: number, after?: string): Promise<Page<StoredFile>> {
    return pageAfter(this.store, 'gateway_files', scope, limit, after, normalize);
  }

  async delete(scope: string, id: string): Promise<boolean> {
    const changed = await this.store.execute('DELETE FROM gateway_files WHERE id = ? AND scope = ?', [id, scope]);
    if (changed) await rm(this.pathOf(id), { force: true });
    return changed > 0;
  }

  async removeTemp(path: string): Promise<void> {
    await rm(path, { force: true });
  }
}

function normalize(row: StoredFile): StoredFile {
  return { ...row, bytes: Number(row.bytes), created_ms: Number(row.created_ms) };
}
