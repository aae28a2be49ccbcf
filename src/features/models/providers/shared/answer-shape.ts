import { GatewayError } from '../../../../contract/errors/gateway-error.js';

/**
 * A provider's 2xx JSON answer that lacks what every answer of its kind has (the main member a
 * translation reads, e.g. an Anthropic Message's `content` array): the upstream's bad answer,
 * 502 provider_error (retried and failed over like a 5xx), never a made-up empty answer.
 */
export function notAnAnswer(provider: string, what: string): GatewayError {
  return new GatewayError('provider_error', `${provider} sent an answer that is not ${what}.`, { provider, retryable: true });
}
