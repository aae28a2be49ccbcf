import type { AnswerError } from '../../../kernel/errors/answer-error.js';

/** The error codes of RFC 6749 §5.2, RFC 7591 §3.2.2 and RFC 8707. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'server_error'
  | 'temporarily_unavailable'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'unsupported_token_type';

/**
 * An error of an OAuth endpoint (token, revocation, registration), answered in OAuth's shape
 * (`{ error, error_description }`, RFC 6749 §5.2) with Cache-Control: no-store.
 */
export class OAuthError extends Error implements AnswerError {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: OAuthErrorCode,
    message: string,
    status?: number,
  ) {
    super(message);
    this.status = status ?? (code === 'invalid_client' ? 401 : code === 'server_error' ? 500 : code === 'temporarily_unavailable' ? 503 : 400);
    this.headers = { 'cache-control': 'no-store', pragma: 'no-cache' };
    if (code === 'invalid_client') this.headers['www-authenticate'] = 'Basic realm="oauth"';
  }

  answerBody(): unknown {
    return { error: this.code, error_description: this.message };
  }
}
