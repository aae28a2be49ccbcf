/**
 * Azure OpenAI errors: OpenAI's shape, plus Azure's own codes: `content_filter` with
 * `innererror.code` ResponsibleAIPolicyViolation (a refused prompt), `contentFilter` (images),
 * DeploymentNotFound (an unknown deployment is an unknown model).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { GatewayError } from '../../../../contract/errors/gateway-error.js';
import { mapOpenAIError } from '../openai-compatible/openai-errors.js';
import { parseErrorBody, upstreamError } from '../shared/upstream-error.js';

const CONTENT_FILTER_CODES = new Set(['content_filter', 'contentfilter', 'responsibleaipolicyviolation', 'content_policy_violation']);
const MODEL_CODES = new Set(['deploymentnotfound', 'model_not_found', 'modelnotfound']);

/** The fields of an Azure error read here (any JSON value reads as no field). */
interface AzureError {
  code?: unknown;
  message?: unknown;
  innererror?: { code?: unknown } | null;
  inner_error?: { code?: unknown } | null;
}

export function mapAzureError(provider: string, status: number, body: Buffer, headers: IncomingHttpHeaders): GatewayError {
  const parsed = parseErrorBody(body);
  const fields = parsed as AzureError & { error?: AzureError | null };
  const err = typeof parsed === 'object' && parsed !== null ? (fields.error ?? fields) : undefined;
  const codes = [err?.code, err?.innererror?.code, err?.inner_error?.code].filter((c): c is string => typeof c === 'string').map((c) => c.toLowerCase());
  const message = typeof err?.message === 'string' ? err.message : undefined;
  if (codes.some((c) => CONTENT_FILTER_CODES.has(c))) {
    return upstreamError(provider, status, { message, code: codes[0], gatewayCode: 'content_policy_violation' }, headers);
  }
  if (codes.some((c) => MODEL_CODES.has(c))) {
    return upstreamError(provider, status, { message, code: codes[0], gatewayCode: 'model_not_found' }, headers);
  }
  return mapOpenAIError(provider, status, body, headers);
}
