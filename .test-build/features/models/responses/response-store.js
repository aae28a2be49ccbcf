import { defineService } from '../../../kernel/engine/services.js';
/** The longest previous_response_id chain followed. */
const MAX_CHAIN = 1000;
function fromRow(row) {
    return {
        id: row.id,
        provider: row.provider,
        native: row.native === true || Number(row.native) === 1,
        previousId: row.previous_id,
        response: JSON.parse(row.response),
        inputItems: JSON.parse(row.input_items),
    };
}
/**
 * Responses kept in the gateway's store (SQLite or PostgreSQL), each visible only to its owner
 * (the gateway credential, or the provider key, that created it).
 */
export class ResponseStore {
    store;
    constructor(store) {
        this.store = store;
    }
    async put(owner, record) {
        await this.store.execute(`INSERT INTO gateway_responses (id, owner, provider, native, previous_id, created_ms, response, input_items) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET response = excluded.response, input_items = excluded.input_items, provider = excluded.provider, native = excluded.native, previous_id = excluded.previous_id`, [record.id, owner, record.provider, record.native ? 1 : 0, record.previousId, Date.now(), JSON.stringify(record.response), JSON.stringify(record.inputItems)]);
    }
    async get(owner, id) {
        const rows = await this.store.query('SELECT id, provider, native, previous_id, response, input_items FROM gateway_responses WHERE id = ? AND owner = ?', [id, owner]);
        return rows[0] ? fromRow(rows[0]) : undefined;
    }
    async delete(owner, id) {
        return (await this.store.execute('DELETE FROM gateway_responses WHERE id = ? AND owner = ?', [id, owner])) > 0;
    }
    /** The response `id` and every one before it (by previous_response_id), oldest first, in one query. */
    async chain(owner, id) {
        const rows = await this.store.query(`WITH RECURSIVE chain (id, provider, native, previous_id, response, input_items, depth) AS (
         SELECT id, provider, native, previous_id, response, input_items, 0 FROM gateway_responses WHERE id = ? AND owner = ?
         UNION ALL
         SELECT r.id, r.provider, r.native, r.previous_id, r.response, r.input_items, c.depth + 1
         FROM gateway_responses r JOIN chain c ON r.id = c.previous_id
         WHERE r.owner = ? AND c.depth < ${MAX_CHAIN}
       )
       SELECT id, provider, native, previous_id, response, input_items, depth FROM chain ORDER BY depth DESC`, [id, owner, owner]);
        return rows.map(fromRow);
    }
}
/** The responses the gateway keeps (provided by the responses capability). */
export const RESPONSE_STORE = defineService('response-store');
//# sourceMappingURL=response-store.js.map