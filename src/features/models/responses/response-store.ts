import { defineService } from '../../../kernel/engine/services.js';
import type { SqlStore } from '../../../kernel/store/sql-store.js';
import type { RoutedAs } from '../routing/plan.js';

type Json = Record<string, unknown>;

/** One kept response: the response object, the request's own input items, where it was served. */
export interface StoredResponse {
  id: string;
  provider: string;
  /** Served by the provider's own Responses API (not translated through chat). */
  native: boolean;
  previousId: string | null;
  response: Json;
  inputItems: Json[];
  /**
   * Made by catalogue model: the model's public name and the index path of the target that
   * served it ("0", "1.2"), by which a DELETE that names no model reaches the same deployment.
   */
  routedAs?: RoutedAs | null;
}

interface Row {
  id: string;
  provider: string;
  native: number | boolean;
  previous_id: string | null;
  response: string;
  input_items: string;
  route_model?: string | null;
  target_index?: string | null;
}

/** The longest previous_response_id chain followed. */
const MAX_CHAIN = 1000;

function fromRow(row: Row): StoredResponse {
  return {
    id: row.id,
    provider: row.provider,
    native: row.native === true || Number(row.native) === 1,
    previousId: row.previous_id,
    response: JSON.parse(row.response),
    inputItems: JSON.parse(row.input_items),
    routedAs: row.route_model && row.target_index ? { model: row.route_model, index: row.target_index } : null,
  };
}

/**
 * Responses kept in the gateway's store (SQLite or PostgreSQL), keyed by (owner, id): each is
 * visible only to its owner (the gateway credential, or the provider key, that created it), and
 * two owners' responses of the same id are two rows.
 */
export class ResponseStore {
  constructor(private readonly store: SqlStore) {}

  /** Keeps `record` for `owner`; the same owner's row of that id is replaced, another owner's is never touched. */
  async put(owner: string, record: StoredResponse): Promise<void> {
    await this.store.execute(
      `INSERT INTO gateway_responses (owner, id, provider, native, previous_id, created_ms, response, input_items, route_model, target_index) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (owner, id) DO UPDATE SET response = excluded.response, input_items = excluded.input_items, provider = excluded.provider, native = excluded.native,
         previous_id = excluded.previous_id, route_model = excluded.route_model, target_index = excluded.target_index`,
      [
        owner,
        record.id,
        record.provider,
        record.native ? 1 : 0,
        record.previousId,
        Date.now(),
        JSON.stringify(record.response),
        JSON.stringify(record.inputItems),
        record.routedAs?.model ?? null,
        record.routedAs?.index ?? null,
      ],
    );
  }

  async get(owner: string, id: string): Promise<StoredResponse | undefined> {
    const rows = await this.store.query<Row>(
      'SELECT id, provider, native, previous_id, response, input_items, route_model, target_index FROM gateway_responses WHERE owner = ? AND id = ?',
      [owner, id],
    );
    return rows[0] ? fromRow(rows[0]) : undefined;
  }

  async delete(owner: string, id: string): Promise<boolean> {
    return (await this.store.execute('DELETE FROM gateway_responses WHERE owner = ? AND id = ?', [owner, id])) > 0;
  }

  /** The response `id` and every one before it (by previous_response_id), oldest first, in one query. */
  async chain(owner: string, id: string): Promise<StoredResponse[]> {
    const rows = await this.store.query<Row & { depth: number }>(
      `WITH RECURSIVE chain (id, provider, native, previous_id, response, input_items, depth) AS (
         SELECT id, provider, native, previous_id, response, input_items, 0 FROM gateway_responses WHERE owner = ? AND id = ?
         UNION ALL
         SELECT r.id, r.provider, r.native, r.previous_id, r.response, r.input_items, c.depth + 1
         FROM gateway_responses r JOIN chain c ON r.owner = ? AND r.id = c.previous_id
         WHERE c.depth < ${MAX_CHAIN}
       )
       SELECT id, provider, native, previous_id, response, input_items, depth FROM chain ORDER BY depth DESC`,
      [owner, id, owner],
    );
    return rows.map(fromRow);
  }
}

/** The responses the gateway keeps (provided by the responses capability). */
export const RESPONSE_STORE = defineService<ResponseStore>('response-store');
