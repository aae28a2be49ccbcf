import type { GatewayConfig } from '../../generated/gateway.js';
import type { ProtectedResourceStageConfig } from '../../generated/stages/protected-resource.js';
import { schemaDocument } from '../../kernel/config/schema-validator.js';
import { defineStage } from '../../kernel/engine/stage.js';
import { publicBaseUrl } from './public-url.js';
import { ALL_SCOPES } from './scopes.js';
import { RESPONSE } from '../../kernel/engine/context.js';

function protectedResource(config: GatewayConfig, base: string, resourcePath: string): Record<string, unknown> {
  const auth = config.auth ?? {};
  const doc: Record<string, unknown> = {
    resource: `${base}${resourcePath}`,
    resource_name: 'AI gateway tool-server endpoint',
    bearer_methods_supported: ['header'],
    scopes_supported: [...new Set([...ALL_SCOPES, ...(auth.scopes ?? [])])],
  };
  // The gateway is the authorization server itself (auth.oauth.role), or names the identity provider's.
  if (auth.enabled && auth.type === 'oauth' && auth.oauth?.role === 'authorization-server') doc.authorization_servers = [base];
  else if (auth.enabled && auth.type === 'oauth' && auth.issuer) doc.authorization_servers = [auth.issuer];
  if (auth.enabled && auth.type === 'mtls') doc.tls_client_certificate_bound_access_tokens = false;
  return doc;
}

/**
 * The RFC 9728 protected-resource metadata of the tool-server endpoint, served at
 * /.well-known/oauth-protected-resource (the endpoint /mcp), and at
 * /.well-known/oauth-protected-resource/mcp[/<server>] (the path-specific form, RFC 9728 §3.1).
 */
export default defineStage<ProtectedResourceStageConfig>({
  name: 'protected-resource',
  description: 'Serves the RFC 9728 protected-resource metadata of /mcp.',
  schema: schemaDocument('stages/protected-resource.schema.json'),
  once: true,
  writes: [RESPONSE],
  terminal: true,
  create(config, services) {
    const cacheControl = `public, max-age=${config.maxAge ?? 300}`;
    return async (ctx) => {
      const server = ctx.params.server;
      if (server !== undefined && !/^[A-Za-z0-9_-]+$/.test(server)) ctx.reject(404, { code: 'not_found', message: `No route ${ctx.method} ${ctx.path}.` });
      const resourcePath = server !== undefined ? `/mcp/${server}` : '/mcp';
      ctx.responseHeaders['cache-control'] = cacheControl;
      ctx.response = { kind: 'json', status: 200, body: protectedResource(services.config, publicBaseUrl(ctx.req, services.config), resourcePath) };
    };
  },
});
