import { request } from 'undici';
import type { McpServerAuth } from '../../../generated/gateway.js';

/** What a token endpoint answered: the tokens, or the refusal (its RFC 6749 error code) or failure. */
export type TokenAnswer = { ok: true; accessToken: string; refreshToken?: string; expiresIn?: number; scope?: string } | { ok: false; refused: boolean; code: string };

/**
 * One request to a tool server's token endpoint (`auth.tokenEndpoint`, or discovered): a user's
 * authorization code or refresh token grant (per_user_oauth), or the gateway's client
 * credentials or token exchange grant. The client authenticates with client_secret_basic when it
 * has a secret, else as a public client (client_id in the body). The endpoint's error
 * description is never passed on.
 */
export async function askTokenEndpoint(auth: McpServerAuth, tokenEndpoint: string, form: URLSearchParams): Promise<TokenAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (auth.clientSecret) headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(auth.clientId!)}:${encodeURIComponent(auth.clientSecret)}`).toString('base64')}`;
  else form.set('client_id', auth.clientId!);
  let status: number;
  let body: Record<string, unknown> = {};
  try {
    const answer = await request(tokenEndpoint, {
      method: 'POST',
      headers,
      body: form.toString(),
      headersTimeout: auth.timeout ?? 10_000,
      bodyTimeout: auth.timeout ?? 10_000,
    });
    status = answer.statusCode;
    const text = await answer.body.text();
    try {
      const parsed = JSON.parse(text) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    } catch {
      // Not JSON: the status says what happened.
    }
  } catch {
    return { ok: false, refused: false, code: 'no_answer' };
  }
  const accessToken = body.access_token;
  if (status >= 300 || typeof accessToken !== 'string' || !accessToken) {
    const code = typeof body.error === 'string' && /^[a-z_]{1,64}$/.test(body.error) ? body.error : `HTTP ${status}`;
    return { ok: false, refused: status === 400 || status === 401 || status === 403, code };
  }
  return {
    ok: true,
    accessToken,
    refreshToken: typeof body.refresh_token === 'string' && body.refresh_token ? body.refresh_token : undefined,
    expiresIn: typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : undefined,
    scope: typeof body.scope === 'string' ? body.scope : undefined,
  };
}
