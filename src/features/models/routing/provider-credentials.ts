import { headerValue, type GatewayContext, type RouteDef } from '../../../kernel/engine/context.js';
import { objectMemo } from '../providers/shared/object-memo.js';
import { providerFieldOfHeader, providerFields, type ProviderField } from '../providers/shared/provider-fields.js';
// The built-in providers declare their fields when loaded (a plugin's, when registered).
import '../providers/builtin-providers.js';

/** The provider settings that travel as x-gateway-<field-with-dashes> headers: every field a provider declares. */
export function providerOptionFields(): readonly string[] {
  return providerFields().map((f) => f.name);
}

/** A value's secrets: itself, and a JSON value's private key (a service account key). */
function secretsOf(field: ProviderField, value: string, out: string[]): void {
  out.push(value);
  if (!field.json) return;
  try {
    const key = (JSON.parse(value) as { private_key?: unknown }).private_key;
    if (typeof key === 'string') out.push(key);
  } catch {
    // Not JSON: the provider says so when it reads it.
  }
}

/**
 * The provider key: x-gateway-api-key, or else Authorization: Bearer <key>, or else (on the
 * Anthropic-format routes, where Anthropic's clients send it) x-api-key. `gatewayKeyHeader`
 * names the header that carries the request's gateway key: it carries no provider key.
 */
export function providerKeyFrom(ctx: GatewayContext<RouteDef & { format?: string }>, gatewayKeyHeader?: string): string | undefined {
  const explicit = headerValue(ctx.headers, 'x-gateway-api-key');
  if (explicit) return explicit.trim();
  if (gatewayKeyHeader !== 'authorization') {
    const auth = headerValue(ctx.headers, 'authorization');
    if (auth && auth.length > 7 && auth.slice(0, 7).toLowerCase() === 'bearer ') return auth.slice(7).trim() || undefined;
  }
  if (ctx.endpoint.format === 'anthropic' && gatewayKeyHeader !== 'x-api-key') return headerValue(ctx.headers, 'x-api-key')?.trim() || undefined;
  return undefined;
}

/** The prefix of every provider setting's header (settingHeader). */
const SETTING_PREFIX = 'x-gateway-';

/** A provider setting a request sent as a header: its field and its value. */
type HeaderSetting = readonly [field: ProviderField, value: string];

/** The provider settings among the request's x-gateway-* headers (empty values left out), walked once per request (authenticate remembers their secrets, route reads their values). */
const headerSettings = objectMemo((ctx: GatewayContext): readonly HeaderSetting[] => {
  const found: HeaderSetting[] = [];
  for (const header in ctx.headers) {
    if (!header.startsWith(SETTING_PREFIX)) continue;
    const field = providerFieldOfHeader(header);
    if (!field) continue;
    const value = headerValue(ctx.headers, header);
    if (value !== undefined && value !== '') found.push([field, value]);
  }
  return found;
});

/** Provider settings sent as headers; secret ones are remembered for redaction. */
export function providerOptionsFrom(ctx: GatewayContext): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const [field, value] of headerSettings(ctx)) {
    options[field.name] = value;
    if (field.secret && !ctx.secrets.includes(value)) secretsOf(field, value, ctx.secrets);
  }
  return options;
}

/** Headers that carry a credential of the caller's (provider keys, gateway tokens); the secret provider settings are added. */
const CREDENTIAL_HEADERS = ['x-gateway-api-key', 'authorization', 'x-gateway-token', 'x-api-key', 'api-key', 'proxy-authorization'];

/**
 * Remembers every credential the request carries in its headers for the redactor (an
 * Authorization value stands for its bare token too), so none is echoed in an answer or log.
 */
export function rememberRequestCredentials(ctx: GatewayContext): void {
  for (const name of CREDENTIAL_HEADERS) {
    const value = headerValue(ctx.headers, name);
    // Each value once (the provider key is usually remembered already): every answer searches each.
    if (value && !ctx.secrets.includes(value)) ctx.secrets.push(value);
  }
  for (const [field, value] of headerSettings(ctx)) if (field.secret && !ctx.secrets.includes(value)) secretsOf(field, value, ctx.secrets);
}
