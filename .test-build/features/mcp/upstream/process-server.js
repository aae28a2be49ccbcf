import { createInterface } from 'node:readline';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { forwardedIdentity } from '../identity-forwarding.js';
import { UpstreamServer } from './upstream-server.js';
/**
 * A tool server the gateway runs as a child process (stdio): started once and shared, restarted
 * with backoff when it dies, its stderr logged line by line under its name (configured env
 * values masked), stopped at shutdown. It receives only the safe default environment plus
 * `env`. The caller's identity travels in `params._meta["io.gateway/identity"]`.
 */
export class ProcessServer extends UpstreamServer {
    forwarding;
    kind = 'process';
    secrets;
    constructor(name, config, logger, forwarding) {
        super(name, config, logger);
        this.forwarding = forwarding;
        // Every env value is a credential as far as callers and logs are concerned (the redactor
        // skips values too short or too plain to mask).
        this.secrets = Object.values(config.env ?? {});
    }
    createTransport() {
        const transport = new StdioClientTransport({
            command: this.config.command,
            args: this.config.args ?? [],
            env: this.config.env,
            cwd: this.config.cwd,
            stderr: 'pipe',
        });
        const stderr = transport.stderr;
        if (stderr) {
            // A stream error (the pipe breaking as the child dies) must not become an uncaught one.
            stderr.on('error', (err) => this.logger.debug({ mcpServer: this.name, err: this.redact(err.message) }, 'tool server stderr failed'));
            const lines = createInterface({ input: stderr, crlfDelay: Infinity });
            lines.on('error', () => undefined);
            lines.on('line', (line) => {
                if (line.trim())
                    this.logger.info({ mcpServer: this.name, stderr: this.redact(line).slice(0, 4096) }, 'tool server stderr');
            });
        }
        // The SDK pipes the child's stderr into the stream above without listening for its errors.
        const start = transport.start.bind(transport);
        transport.start = async () => {
            await start();
            const child = transport._process;
            child?.stderr?.on('error', () => undefined);
        };
        return transport;
    }
    identityMeta(identity) {
        const values = forwardedIdentity(identity, this.forwarding);
        return Object.keys(values).length ? values : undefined;
    }
    withIdentity(_identity, fn) {
        return fn();
    }
}
//# sourceMappingURL=process-server.js.map