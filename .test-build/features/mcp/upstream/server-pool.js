import { EventEmitter } from 'node:events';
import { ProcessServer } from './process-server.js';
import { RemoteServer } from './remote-server.js';
/** Config problems of mcpServers a JSON Schema does not say well. */
export function mcpServerProblems(config) {
    const out = [];
    for (const [name, server] of Object.entries(config.mcpServers ?? {})) {
        if (server.command && server.url)
            out.push(`mcpServers.${name}: give either command or url, not both`);
        if (server.url && !/^https?:\/\//i.test(server.url))
            out.push(`mcpServers.${name}.url: must be an http:// or https:// address`);
        if (server.command && server.headers)
            out.push(`mcpServers.${name}.headers: only applies to a remote (url) server`);
        if (server.url && (server.env || server.args || server.cwd))
            out.push(`mcpServers.${name}: env, args and cwd only apply to a process (command) server`);
    }
    return out;
}
/**
 * Every enabled tool server of mcpServers, in config order. Emits 'list_changed' (server, kind)
 * when a server's tools, prompts or resources may have changed (its notification, or it came
 * up or went down).
 */
export class ServerPool extends EventEmitter {
    servers = new Map();
    constructor(config, logger) {
        super();
        this.setMaxListeners(0);
        const forwarding = config.identityForwarding ?? {};
        for (const [name, server] of Object.entries(config.mcpServers ?? {})) {
            if (server.enabled === false)
                continue;
            const upstream = server.url ? new RemoteServer(name, server, logger, forwarding) : new ProcessServer(name, server, logger, forwarding);
            upstream.on('list_changed', (kind) => this.emit('list_changed', name, kind));
            this.servers.set(name, upstream);
        }
    }
    names() {
        return [...this.servers.keys()];
    }
    get(name) {
        return this.servers.get(name);
    }
    /** Starts every server at once; resolves when each first attempt ended (failures retry in the background). */
    async start() {
        await Promise.all([...this.servers.values()].map((s) => s.start()));
    }
    async close() {
        await Promise.all([...this.servers.values()].map((s) => s.close()));
    }
}
//# sourceMappingURL=server-pool.js.map