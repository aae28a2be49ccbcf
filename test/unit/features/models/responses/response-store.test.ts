import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SqlStore } from '../../../../../src/kernel/store/sql-store.js';
import { SqliteStore } from '../../../../../src/kernel/store/sqlite/sqlite-store.js';
import { PostgresStore } from '../../../../../src/kernel/store/postgres/postgres-store.js';
import { RESPONSES_MIGRATIONS } from '../../../../../src/features/models/responses/migrations.js';
import { ResponseStore, type StoredResponse } from '../../../../../src/features/models/responses/response-store.js';
import { dropSharedState, PG_URL } from '../../../../helpers/shared-stores.js';

function record(id: string, text: string, previousId: string | null = null): StoredResponse {
  return {
    id,
    provider: 'ollama',
    native: false,
    previousId,
    response: { id, object: 'response', output_text: text },
    inputItems: [{ id: `msg_${text}`, type: 'message', role: 'user', content: [] }],
  };
}

function suite(name: string, make: () => Promise<{ store: SqlStore; cleanup: () => Promise<void> }>) {
  describe(`responses kept on ${name}`, () => {
    let store: SqlStore;
    let cleanup: () => Promise<void>;
    let responses: ResponseStore;
    beforeAll(async () => {
      ({ store, cleanup } = await make());
      // a store from before the (owner, id) key, with a response in it
      await store.migrate(RESPONSES_MIGRATIONS.slice(0, 1));
      await store.execute('INSERT INTO gateway_responses (id, owner, provider, native, previous_id, created_ms, response, input_items) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
        'resp_legacy',
        'key:a',
        'anthropic',
        0,
        null,
        1,
        JSON.stringify({ id: 'resp_legacy', output_text: 'old' }),
        '[]',
      ]);
      await store.migrate(RESPONSES_MIGRATIONS);
      responses = new ResponseStore(store);
    });
    afterAll(async () => {
      await store.close();
      await cleanup();
    });

    it('keeps the responses kept before the migration readable by their owner only', async () => {
      expect(await responses.get('key:a', 'resp_legacy')).toMatchObject({ id: 'resp_legacy', provider: 'anthropic', native: false, response: { output_text: 'old' } });
      expect(await responses.get('key:b', 'resp_legacy')).toBeUndefined();
    });

    it('keeps how a response made by catalogue model was routed, and rows from before it read as routed no way', async () => {
      expect((await responses.get('key:a', 'resp_legacy'))!.routedAs).toBeNull();
      await responses.put('key:a', { ...record('resp_routed', 'by model'), routedAs: { model: 'fast', index: '1.0' } });
      expect((await responses.get('key:a', 'resp_routed'))!.routedAs).toEqual({ model: 'fast', index: '1.0' });
      await responses.put('key:a', record('resp_routed', 'by provider'));
      expect((await responses.get('key:a', 'resp_routed'))!.routedAs).toBeNull();
    });

    it('two owners of one id are two rows: the second never takes the place of the first; an owner replaces only its own', async () => {
      await responses.put('key:a', record('resp_same', 'from a'));
      await responses.put('key:b', record('resp_same', 'from b'));
      expect((await responses.get('key:a', 'resp_same'))!.response.output_text).toBe('from a');
      expect((await responses.get('key:b', 'resp_same'))!.response.output_text).toBe('from b');
      await responses.put('key:b', record('resp_same', 'from b again'));
      expect((await responses.get('key:a', 'resp_same'))!.response.output_text).toBe('from a');
      expect((await responses.get('key:b', 'resp_same'))!.response.output_text).toBe('from b again');
      expect(await responses.delete('key:c', 'resp_same')).toBe(false);
      expect(await responses.delete('key:b', 'resp_same')).toBe(true);
      expect((await responses.get('key:a', 'resp_same'))!.response.output_text).toBe('from a');
      expect(await responses.get('key:b', 'resp_same')).toBeUndefined();
    });

    it("a chain follows its owner's responses only, even where another owner holds the same previous id", async () => {
      await responses.put('key:a', record('resp_first', 'a first'));
      await responses.put('key:b', record('resp_first', 'b first'));
      await responses.put('key:b', record('resp_second', 'b second', 'resp_first'));
      expect((await responses.chain('key:b', 'resp_second')).map((r) => r.response.output_text)).toEqual(['b first', 'b second']);
      expect(await responses.chain('key:a', 'resp_second')).toEqual([]);
    });
  });
}

suite('SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-resp-'));
  return { store: new SqliteStore(join(dir, 'gateway.db')), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
});

suite('PostgreSQL', async () => {
  const schema = `responses_store_${process.pid}_${Date.now()}`;
  const store = new PostgresStore(PG_URL, schema);
  await store.open();
  return { store, cleanup: () => dropSharedState('postgres', '', schema) };
});
