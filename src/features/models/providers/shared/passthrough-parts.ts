import { GatewayError } from '../../../../contract/errors/gateway-error.js';
import { endsLikeJsonObject } from '../../../../contract/json.js';
import type { StreamPart } from '../../../../contract/stream-parts.js';

/**
 * The one place where a provider's stream mapper makes the parts that carry an upstream event's
 * data untouched (`chunk`: an OpenAI chunk; `event`: an event already in the answer's format, a
 * Responses or Anthropic Messages event). Their data goes to the caller as it came, so it is
 * checked here, once per event, for every provider that passes events through: data that cannot
 * be a JSON object by its ends (see contract/json.ts endsLikeJsonObject: nothing parsed, only the
 * white space at its ends walked) is the upstream's broken stream (`notJsonEvent`).
 */

/** A stream event whose data is not JSON: the upstream's bad answer (502 before the first byte, the stream's failure event after it). */
export function notJsonEvent(provider: string | undefined): GatewayError {
  return new GatewayError('provider_error', `${provider ?? 'The provider'} sent a stream event that is not JSON.`, { provider, retryable: true });
}

/** An OpenAI chunk (the JSON text of one `data:` event) passed through as it came; `provider` names the sender of a broken one. */
export function passedChunk(data: string, provider: string | undefined): StreamPart {
  if (!endsLikeJsonObject(data)) throw notJsonEvent(provider);
  return { type: 'chunk', data };
}

/** An upstream event already in the answer's format (`event`: its type) passed through as it came. */
export function passedEvent(event: string | undefined, data: string, provider: string | undefined): StreamPart {
  if (!endsLikeJsonObject(data)) throw notJsonEvent(provider);
  return { type: 'event', event, data };
}
