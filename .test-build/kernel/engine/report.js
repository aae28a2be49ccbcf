import { defineSlot } from './slot.js';
/** The upstream that answered (or was tried last): a provider, a tool server. Logs and metrics name it. */
export const UPSTREAM = defineSlot('upstream', 'the upstream that answered');
/** How many times the request was retried upstream (logs; x-gateway-retry-count). */
export const RETRIES = defineSlot('retries', 'a retry count');
/** Set by every authenticate stage once the caller's credentials are checked (ctx.identity holds who, or null). */
export const CALLER = defineSlot('caller', 'an authenticated caller');
/** Log this request's line at debug level (health probes and scrapes, which would drown the log). */
export const QUIET = defineSlot('quiet', 'a quiet-log flag');
//# sourceMappingURL=report.js.map