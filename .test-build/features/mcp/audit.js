export function who(identity) {
    return identity.user ?? identity.email ?? identity.name ?? identity.id;
}
export class AuditLog {
    logger;
    constructor(logger) {
        this.logger = logger;
    }
    record(identity, entry) {
        const line = {
            audit: 'mcp',
            who: who(identity),
            credential: `${identity.kind}:${identity.id}`,
            ...entry,
            ms: Math.round(entry.ms * 100) / 100,
        };
        if (entry.allowed)
            this.logger.info(line, 'mcp access');
        else
            this.logger.warn(line, 'mcp access denied');
    }
}
//# sourceMappingURL=audit.js.map