import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../../../../contract/errors/gateway-error.js';
import type { ErrorCode } from '../../../../contract/errors/catalogue.js';

/** What a provider's error module pulls out of an upstream error body. */
export interface UpstreamErrorInfo {
  message?: string;
  /** The provider's own code or type ("model_not_found", "overloaded_error", ...). */
  code?: string;
  param?: string;
  /** A code the provider module already decided on (content policy, unknown model). */
  gatewayCode?: ErrorCode;
}

const CONTENT_POLICY = /content[_ ]?(policy|filter|management)|safety|moderation|responsible ?ai/i;
const MODEL_UNKNOWN = /model[_ ]?not[_ ]?found|(model|deployment).*(does not exist|not found|unknown|not available|is not supported|invalid)|unknown model|no such model/i;

/** Seconds from Retry-After (seconds or HTTP date) or retry-after-ms. */
export function retryAfterSeconds(headers: IncomingHttpHeaders): number | undefined {
  const ms = headers['retry-after-ms'];
  if (typeof ms === 'string' && /^\d+(\.\d+)?$/.test(ms)) return Math.max(0, Number(ms) / 1000);
  const raw = headers['retry-after'];
  if (typeof raw !== 'string' || raw === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(raw.trim())) return Number(raw.trim());
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/**
 * The shared status rules every provider's error module ends in: 401/403 -> invalid key,
 * 404 -> unknown model or id, 429 -> rate limit with Retry-After, 5xx -> provider error,
 * content refusals -> content_policy_violation, other 4xx -> invalid request. The status
 * decides for 401, 403, 429 and 5xx whatever the body says (the contract maps those statuses);
 * a provider module's own code (`gatewayCode`, read from the body) refines only the others.
 */
export function upstreamError(provider: string, status: number, info: UpstreamErrorInfo, headers: IncomingHttpHeaders): GatewayError {
  const message = info.message?.trim() || `${provider} answered HTTP ${status}`;
  const text = `${info.code ?? ''} ${message}`;
  let code: ErrorCode;
  if (status === 401 || status === 403) code = 'invalid_api_key';
  else if (status === 429) code = 'rate_limit_exceeded';
  else if (status >= 500) code = 'provider_error';
  else if (info.gatewayCode) code = info.gatewayCode;
  else if (CONTENT_POLICY.test(text)) code = 'content_policy_violation';
  else if (status === 404) code = MODEL_UNKNOWN.test(text) ? 'model_not_found' : 'not_found';
  else if (MODEL_UNKNOWN.test(text)) code = 'model_not_found';
  else if (status === 408) code = 'request_timeout';
  else if (status === 422) code = 'semantic_error';
  else code = 'missing_required_parameter';
  const retryAfter = retryAfterSeconds(headers);
  const out = new GatewayError(code, message, {
    provider,
    param: info.param,
    upstreamStatus: status,
    retryAfter,
    headers: code === 'rate_limit_exceeded' ? { 'retry-after': String(Math.ceil(retryAfter ?? 1)) } : undefined,
  });
  return out;
}

/** Parses an error body as JSON when it is JSON; otherwise returns the text. */
export function parseErrorBody(body: Buffer): unknown {
  const text = body.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
