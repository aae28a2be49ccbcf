import type { GatewayConfig } from '../../../generated/gateway.js';

/** Config problems of mcpServers a JSON Schema does not say well. */
export function mcpServerProblems(config: GatewayConfig): string[] {
  const out: string[] = [];
  for (const [name, server] of Object.entries(config.mcpServers ?? {})) {
    if (server.command && server.url) out.push(`mcpServers.${name}: give either command or url, not both`);
    if (server.url && !/^https?:\/\//i.test(server.url)) out.push(`mcpServers.${name}.url: must be an http:// or https:// address`);
    if (server.command && server.headers) out.push(`mcpServers.${name}.headers: only applies to a remote (url) server`);
    if (server.url && (server.env || server.args || server.cwd)) out.push(`mcpServers.${name}: env, args and cwd only apply to a process (command) server`);
  }
  return out;
}
