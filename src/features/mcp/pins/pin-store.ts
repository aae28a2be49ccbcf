import type { Migration, SqlStore } from '../../../kernel/store/sql-store.js';

/** What is pinned: a tool, a prompt, a server's instructions, or the mark that a server's first list was taken. */
export type PinKind = 'tool' | 'prompt' | 'instructions' | 'baseline';

/** One pinned definition: the approved digest ('' while a new tool waits for approval) and a change seen since, if any. */
export interface PinRow {
  server: string;
  kind: PinKind;
  name: string;
  digest: string;
  definition: string;
  pendingDigest: string | null;
  pendingDefinition: string | null;
}

export const PIN_MIGRATIONS: Migration[] = [
  {
    id: 'mcp-pins-001-create',
    statements: [
      `CREATE TABLE IF NOT EXISTS gateway_mcp_pins (
        server TEXT NOT NULL,
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        digest TEXT NOT NULL,
        definition TEXT NOT NULL,
        pending_digest TEXT,
        pending_definition TEXT,
        first_seen BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (server, kind, name)
      )`,
    ],
  },
];

interface Stored {
  server: string;
  kind: string;
  name: string;
  digest: string;
  definition: string;
  pending_digest: string | null;
  pending_definition: string | null;
}

function rowOf(r: Stored): PinRow {
  return {
    server: r.server,
    kind: r.kind as PinKind,
    name: r.name,
    digest: r.digest,
    definition: r.definition,
    pendingDigest: r.pending_digest ?? null,
    pendingDefinition: r.pending_definition ?? null,
  };
}

/**
 * At most this many rows per INSERT: 9 parameters a row, 9,216 a statement, under SQLite's limit
 * (32,766) and PostgreSQL's (65,535).
 */
export const INSERT_ROWS = 1024;

/**
 * How many of `left` rows the next INSERT takes: INSERT_ROWS, or the largest power of two that
 * fits, so that the statements' texts are few (SQLite keeps each one prepared).
 */
function chunkRows(left: number): number {
  if (left >= INSERT_ROWS) return INSERT_ROWS;
  return 2 ** Math.floor(Math.log2(left));
}

/** The pinned definitions of tool servers, in the store every instance shares. */
export class PinStore {
  constructor(private readonly store: SqlStore) {}

  async rows(servers: readonly string[]): Promise<PinRow[]> {
    if (!servers.length) return [];
    const rows = await this.store.query<Stored>(
      `SELECT server, kind, name, digest, definition, pending_digest, pending_definition FROM gateway_mcp_pins WHERE server IN (${servers.map(() => '?').join(', ')})`,
      [...servers],
    );
    return rows.map(rowOf);
  }

  /** The pins of some `names` of one server and kind, read at once (a page of the admin API). */
  async rowsNamed(server: string, kind: PinKind, names: readonly string[]): Promise<PinRow[]> {
    if (!names.length) return [];
    const rows = await this.store.query<Stored>(
      `SELECT server, kind, name, digest, definition, pending_digest, pending_definition FROM gateway_mcp_pins WHERE server = ? AND kind = ? AND name IN (${names.map(() => '?').join(', ')})`,
      [server, kind, ...names],
    );
    return rows.map(rowOf);
  }

  async row(server: string, kind: PinKind, name: string): Promise<PinRow | undefined> {
    const rows = await this.store.query<Stored>(
      'SELECT server, kind, name, digest, definition, pending_digest, pending_definition FROM gateway_mcp_pins WHERE server = ? AND kind = ? AND name = ?',
      [server, kind, name],
    );
    return rows[0] && rowOf(rows[0]);
  }

  /**
   * Pins definitions seen for the first time (a pin another instance made first is kept; of two
   * rows of one name, the first), in one transaction: multi-row INSERTs of at most
   * INSERT_ROWS rows (a server's 10,000 tools: 10 statements, not 10,000).
   */
  async insertMany(rows: readonly PinRow[]): Promise<void> {
    if (!rows.length) return;
    const now = Date.now();
    await this.store.transaction(async (tx) => {
      for (let at = 0; at < rows.length;) {
        const n = chunkRows(rows.length - at);
        const params: unknown[] = [];
        for (const row of rows.slice(at, at + n)) params.push(row.server, row.kind, row.name, row.digest, row.definition, row.pendingDigest, row.pendingDefinition, now, now);
        await tx.execute(
          `INSERT INTO gateway_mcp_pins (server, kind, name, digest, definition, pending_digest, pending_definition, first_seen, updated_at)
           VALUES ${Array.from({ length: n }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')} ON CONFLICT (server, kind, name) DO NOTHING`,
          params,
        );
        at += n;
      }
    });
  }

  /** Notes a definition that differs from the pinned one (what an admin would approve). */
  async notePending(server: string, kind: PinKind, name: string, digest: string, definition: string): Promise<void> {
    await this.store.execute('UPDATE gateway_mcp_pins SET pending_digest = ?, pending_definition = ?, updated_at = ? WHERE server = ? AND kind = ? AND name = ?', [
      digest,
      definition,
      Date.now(),
      server,
      kind,
      name,
    ]);
  }

  /** The pending definition becomes the pinned one; answers the approved row (undefined when nothing was pending). */
  async approve(server: string, kind: PinKind, name: string): Promise<PinRow | undefined> {
    return this.store.transaction(async (tx) => {
      const rows = await tx.query<Stored>(
        'SELECT server, kind, name, digest, definition, pending_digest, pending_definition FROM gateway_mcp_pins WHERE server = ? AND kind = ? AND name = ?',
        [server, kind, name],
      );
      const row = rows[0];
      if (!row || !row.pending_digest || row.pending_definition === null) return undefined;
      await tx.execute(
        'UPDATE gateway_mcp_pins SET digest = ?, definition = ?, pending_digest = NULL, pending_definition = NULL, updated_at = ? WHERE server = ? AND kind = ? AND name = ?',
        [row.pending_digest, row.pending_definition, Date.now(), server, kind, name],
      );
      return { ...rowOf(row), digest: row.pending_digest, definition: row.pending_definition, pendingDigest: null, pendingDefinition: null };
    });
  }
}
