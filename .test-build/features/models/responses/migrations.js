/** The responses the gateway keeps for GET, input_items and previous_response_id (portable SQL). */
export const RESPONSES_MIGRATIONS = [
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
];
//# sourceMappingURL=migrations.js.map