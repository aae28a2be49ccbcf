/**
 * Provider settings a caller may send (as x-gateway-<field> headers or routing-target fields)
 * that become part of an upstream URL: each is checked against a strict pattern before
 * anything is built or sent, so no value can change the host, port, user info, path or query
 * of an upstream request. Anything else is a 400 naming the parameter.
 */
import { addressFieldNames, providerField, settingHeader } from './provider-fields.js';

export { settingHeader, addressFieldNames as addressFields };

/** Why a caller value is refused, or undefined when it passes (absent values, and fields without a pattern, pass). */
export function callerValueProblem(field: string, value: unknown): string | undefined {
  const rule = providerField(field);
  if (!rule?.pattern || value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') return `must be a string: ${rule.what ?? 'text'}`;
  return rule.pattern.test(value.trim()) ? undefined : `must be ${rule.what ?? `text matching ${rule.pattern.source}`}`;
}

/**
 * Characters a header value may hold (what HTTP and undici accept): tab, visible ASCII, space
 * and obs-text. CR, LF, NUL and other control characters, and anything beyond Latin-1, are not.
 */
const HEADER_UNSAFE = /[^\t\x20-\x7e\x80-\xff]/;

export function headerSafe(value: string): boolean {
  return !HEADER_UNSAFE.test(value);
}
