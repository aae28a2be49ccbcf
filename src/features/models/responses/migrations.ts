import type { Migration } from '../../../kernel/store/sql-store.js';

/** The responses the gateway keeps for GET, input_items and previous_response_id (portable SQL). */
export const RESPONSES_MIGRATIONS: Migration[] = [
  {
    id: 'responses-001-create',
    statements: [
      `CREATE TABLE IF NOT EXISTS gateway_responses (
        id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        provider TEXT NOT NULL,
        native INTEGER NOT NULL,
        previous_id TEXT,
        created_ms BIGINT NOT NULL,
        response TEXT NOT NULL,
        input_items TEXT NOT NULL
      )`,
      'CREATE INDEX IF NOT EXISTS gateway_responses_by_owner ON gateway_responses (owner, created_ms)',
    ],
  },
  {
    // The key becomes (owner, id): a response of one owner never takes the place of another's.
    // Rows kept before stay readable by the owner they had.
    id: 'responses-002-owner-key',
    statements: [
      `CREATE TABLE gateway_responses_owned (
        owner TEXT NOT NULL,
        id TEXT NOT NULL,
        provider TEXT NOT NULL,
        native INTEGER NOT NULL,
        previous_id TEXT,
        created_ms BIGINT NOT NULL,
        response TEXT NOT NULL,
        input_items TEXT NOT NULL,
        PRIMARY KEY (owner, id)
      )`,
      `INSERT INTO gateway_responses_owned (owner, id, provider, native, previous_id, created_ms, response, input_items)
        SELECT owner, id, provider, native, previous_id, created_ms, response, input_items FROM gateway_responses`,
      'DROP TABLE gateway_responses',
      'ALTER TABLE gateway_responses_owned RENAME TO gateway_responses',
      'CREATE INDEX IF NOT EXISTS gateway_responses_by_owner ON gateway_responses (owner, created_ms)',
    ],
  },
  {
    // How a response made by catalogue model was routed: the model's public name and the index of
    // the target that served it, so that a DELETE by id alone reaches the same deployment.
    id: 'responses-003-routed-as',
    statements: ['ALTER TABLE gateway_responses ADD COLUMN route_model TEXT', 'ALTER TABLE gateway_responses ADD COLUMN target_index TEXT'],
  },
];
