import type { GatewayConfig } from '../../../generated/gateway.js';

/** Config problems of mcpServers a JSON Schema does not say well. */
export function mcpServerProblems(config: GatewayConfig): string[] {
  const out: string[] = [];
  for (const [name, server] of Object.entries(config.mcpServers ?? {})) {
    if (server.command && server.url) out.push(`mcpServers.${name}: give either command or url, not both`);
    if (server.url && !/^https?:\/\//i.test(server.url)) out.push(`mcpServers.${name}.url: must be an http:// or https:// address`);
    if (server.command && server.headers) out.push(`mcpServers.${name}.headers: only applies to a remote (url) server`);
    if (server.url && (server.env || server.args || server.cwd)) out.push(`mcpServers.${name}: env, args and cwd only apply to a process (command) server`);
    const auth = server.auth;
    if (auth && auth.upstream !== 'static') {
      if (!server.url) out.push(`mcpServers.${name}.auth.upstream: ${auth.upstream} only applies to a remote (url) server`);
      const perUser = auth.upstream === 'per_user_oauth';
      const required = perUser ? (['clientId'] as const) : (['tokenEndpoint', 'clientId', 'clientSecret'] as const);
      for (const field of required) {
        if (!auth[field]) out.push(`mcpServers.${name}.auth.${field}: required with upstream ${auth.upstream}`);
      }
      // per_user_oauth: both endpoints, or neither (discovered from the server's metadata).
      if (perUser && Boolean(auth.authorizationEndpoint) !== Boolean(auth.tokenEndpoint))
        out.push(`mcpServers.${name}.auth: give both authorizationEndpoint and tokenEndpoint, or neither (discovered from the server's RFC 9728 metadata)`);
      if (!perUser && auth.authorizationEndpoint) out.push(`mcpServers.${name}.auth.authorizationEndpoint: only applies to upstream per_user_oauth`);
      if (perUser && !config.secrets?.key) out.push(`mcpServers.${name}.auth.upstream: per_user_oauth keeps each user's tokens sealed in the store; set secrets.key`);
      if (auth.authorizationEndpoint && !secureEndpoint(auth.authorizationEndpoint))
        out.push(`mcpServers.${name}.auth.authorizationEndpoint: must be an https:// address (http:// only on loopback)`);
      if (auth.tokenEndpoint && !secureEndpoint(auth.tokenEndpoint)) out.push(`mcpServers.${name}.auth.tokenEndpoint: must be an https:// address (http:// only on loopback)`);
      if (server.headers && Object.keys(server.headers).some((h) => h.toLowerCase() === 'authorization')) {
        out.push(`mcpServers.${name}.headers.Authorization: the token comes from auth.upstream ${auth.upstream}; remove the header`);
      }
    }
  }
  return out;
}

/** https://, or http:// on a loopback address (a token endpoint carries credentials). */
function secureEndpoint(url: string): boolean {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'https:') return true;
    return parsed.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname);
  } catch {
    return false;
  }
}
