import { defineSlot } from './slot.js';

/** The upstream that answered (or was tried last): a provider, a tool server. Logs and metrics name it. */
export const UPSTREAM = defineSlot<string>('upstream', 'the upstream that answered');
/** How many times the request was retried upstream (logs; x-gateway-retry-count). */
export const RETRIES = defineSlot<number>('retries', 'a retry count');
/** Set by every authenticate stage once the caller's credentials are checked (ctx.identity holds who, or null). */
export const CALLER = defineSlot<true>('caller', 'an authenticated caller');
/** Log this request's line at debug level (health probes and scrapes, which would drown the log). */
export const QUIET = defineSlot<true>('quiet', 'a quiet-log flag');
/**
 * JSON members features add to the request's log line (a model request's model, tokens and
 * attempts): text that starts with a comma (`,"name":<json>...`), free text in it already
 * masked by the feature that wrote it.
 */
export const LINE_FIELDS = defineSlot<string>('line-fields', 'extra fields of the request line', { edge: true });
