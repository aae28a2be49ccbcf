import type { Express } from 'express';
import type { GatewayConfig } from '../generated/gateway.js';
import { publicBaseUrl } from './public-url.js';
import { ALL_SCOPES } from './scopes.js';

/**
 * The RFC 9728 protected-resource metadata of the tool-server endpoint, served at
 * /.well-known/oauth-protected-resource (the endpoint /mcp), and at
 * /.well-known/oauth-protected-resource/mcp[/<server>] (the path-specific form, RFC 9728 §3.1).
 */
export function mountProtectedResourceMetadata(app: Express, config: GatewayConfig): void {
  const auth = config.auth ?? {};
  const document = (base: string, resourcePath: string) => {
    const doc: Record<string, unknown> = {
      resource: `${base}${resourcePath}`,
      resource_name: 'AI gateway tool-server endpoint',
      bearer_methods_supported: ['header'],
      scopes_supported: [...new Set([...ALL_SCOPES, ...(auth.scopes ?? [])])],
    };
    if (auth.enabled && auth.type === 'oauth' && auth.issuer) doc.authorization_servers = [auth.issuer];
    if (auth.enabled && auth.type === 'mtls') doc.tls_client_certificate_bound_access_tokens = false;
    return doc;
  };
  app.get('/.well-known/oauth-protected-resource', (req, res) => {
    res.setHeader('cache-control', 'public, max-age=300');
    res.json(document(publicBaseUrl(req, config), '/mcp'));
  });
  app.get(/^\/\.well-known\/oauth-protected-resource(\/mcp(?:\/[A-Za-z0-9_-]+)?)$/, (req, res) => {
    const path = /^\/\.well-known\/oauth-protected-resource(\/mcp(?:\/[A-Za-z0-9_-]+)?)$/.exec(req.path)![1]!;
    res.setHeader('cache-control', 'public, max-age=300');
    res.json(document(publicBaseUrl(req, config), path));
  });
}
