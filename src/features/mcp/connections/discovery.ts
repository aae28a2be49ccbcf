import { request } from 'undici';
import { RPC, RpcFailure } from '../rpc-errors.js';

/** Where a user connects and where the gateway trades codes and refresh tokens. */
export interface AuthorizationEndpoints {
  authorizationEndpoint: string;
  tokenEndpoint: string;
  /** The resource indicator (RFC 8707) the server's protected-resource metadata names. */
  resource?: string;
}

const MAX_BYTES = 64 * 1024;

/** https://, or http:// on a loopback address (the token endpoint receives the client secret and codes). */
export function secureEndpoint(url: unknown): url is string {
  if (typeof url !== 'string') return false;
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'https:') return true;
    return parsed.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname);
  } catch {
    return false;
  }
}

/** RFC 9728 §3.1 / RFC 8414 §3.1: the well-known suffix goes between the host and the path. */
function wellKnown(url: string, suffix: string): string[] {
  const parsed = new URL(url);
  const path = parsed.pathname.replace(/\/+$/, '');
  const at = `${parsed.origin}/.well-known/${suffix}`;
  return path ? [`${at}${path}`, at] : [at];
}

async function getJson(url: string, timeoutMs: number): Promise<Record<string, unknown> | undefined> {
  try {
    const answer = await request(url, { method: 'GET', headers: { accept: 'application/json' }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    if (answer.statusCode !== 200) {
      await answer.body.dump();
      return undefined;
    }
    const length = Number(answer.headers['content-length'] ?? 0);
    if (length > MAX_BYTES) {
      await answer.body.dump();
      return undefined;
    }
    const text = await answer.body.text();
    if (text.length > MAX_BYTES) return undefined;
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The authorization server of a tool server that names none in the config: its RFC 9728
 * protected-resource metadata (at the server's origin) names the authorization server, whose
 * RFC 8414 metadata (the issuer must match) gives the endpoints; PKCE S256 must be supported and
 * both endpoints https:// (http:// on loopback only).
 */
export async function discoverEndpoints(server: string, serverUrl: string, timeoutMs = 10_000): Promise<AuthorizationEndpoints> {
  const fail = (why: string) => new RpcFailure(RPC.SERVER_UNAVAILABLE, `Tool server ${server}: its authorization server could not be discovered (${why}).`);
  let resource: Record<string, unknown> | undefined;
  for (const url of wellKnown(serverUrl, 'oauth-protected-resource')) if ((resource = await getJson(url, timeoutMs))) break;
  if (!resource) throw fail('no protected-resource metadata');
  const issuer = Array.isArray(resource.authorization_servers) ? resource.authorization_servers[0] : undefined;
  if (!secureEndpoint(issuer)) throw fail('no https authorization server named');
  let metadata: Record<string, unknown> | undefined;
  for (const url of [...wellKnown(issuer, 'oauth-authorization-server'), ...wellKnown(issuer, 'openid-configuration')]) if ((metadata = await getJson(url, timeoutMs))) break;
  if (!metadata) throw fail('no authorization server metadata');
  if (metadata.issuer !== issuer) throw fail('the metadata names another issuer');
  const methods = metadata.code_challenge_methods_supported;
  if (!Array.isArray(methods) || !methods.includes('S256')) throw fail('PKCE S256 is not supported');
  const { authorization_endpoint: authorizationEndpoint, token_endpoint: tokenEndpoint } = metadata;
  if (!secureEndpoint(authorizationEndpoint) || !secureEndpoint(tokenEndpoint)) throw fail('its endpoints are not https');
  const out: AuthorizationEndpoints = { authorizationEndpoint, tokenEndpoint };
  if (typeof resource.resource === 'string' && /^https?:\/\//.test(resource.resource)) out.resource = resource.resource;
  return out;
}
