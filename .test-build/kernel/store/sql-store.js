export const MIGRATIONS_TABLE = 'gateway_migrations';
//# sourceMappingURL=sql-store.js.map