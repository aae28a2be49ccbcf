import { headerValue, type GatewayContext } from '../../../kernel/engine/context.js';
import { PROVIDER_DATA } from '../providers/builtin-providers.js';

/** Provider-specific settings that travel as x-gateway-<field-with-dashes> headers: the translated providers', then each data file's options. */
export const PROVIDER_OPTION_FIELDS: readonly string[] = [
  'azure_resource_name',
  'azure_deployment_id',
  'azure_api_version',
  'aws_access_key_id',
  'aws_secret_access_key',
  'aws_session_token',
  'aws_region',
  'vertex_project_id',
  'vertex_region',
  'vertex_service_account_json',
  ...new Set(PROVIDER_DATA.flatMap((data) => (data.options ?? []).map((option) => option.field))),
];

const OPTION_HEADERS = PROVIDER_OPTION_FIELDS.map((field) => [field, `x-gateway-${field.replace(/_/g, '-')}`] as const);
const SECRET_OPTIONS = new Set(['aws_secret_access_key', 'aws_session_token', 'vertex_service_account_json', 'aws_access_key_id']);

/**
 * The provider key: x-gateway-api-key, or else Authorization: Bearer <key>, or else (on the
 * Anthropic-format routes, where Anthropic's clients send it) x-api-key. `gatewayKeyHeader`
 * names the header that carries the request's gateway key: it carries no provider key.
 */
export function providerKeyFrom(ctx: GatewayContext<any>, gatewayKeyHeader?: string): string | undefined {
  const explicit = headerValue(ctx.headers, 'x-gateway-api-key');
  if (explicit) return explicit.trim();
  if (gatewayKeyHeader !== 'authorization') {
    const auth = headerValue(ctx.headers, 'authorization');
    if (auth && auth.length > 7 && auth.slice(0, 7).toLowerCase() === 'bearer ') return auth.slice(7).trim() || undefined;
  }
  if (ctx.endpoint.format === 'anthropic' && gatewayKeyHeader !== 'x-api-key') return headerValue(ctx.headers, 'x-api-key')?.trim() || undefined;
  return undefined;
}

/** Provider settings sent as headers; secret ones are remembered for redaction. */
export function providerOptionsFrom(ctx: GatewayContext<any>): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const [field, header] of OPTION_HEADERS) {
    const value = headerValue(ctx.headers, header);
    if (value === undefined || value === '') continue;
    options[field] = value;
    if (SECRET_OPTIONS.has(field)) ctx.secrets.push(value);
    if (field === 'vertex_service_account_json') {
      try {
        const key = (JSON.parse(value) as { private_key?: unknown }).private_key;
        if (typeof key === 'string') ctx.secrets.push(key);
      } catch {
        // Not JSON: the provider says so when it reads it.
      }
    }
  }
  return options;
}

/** Headers that carry a credential of the caller's (provider keys, cloud credentials, gateway tokens). */
const CREDENTIAL_HEADERS = [
  'x-gateway-api-key',
  'authorization',
  'x-gateway-token',
  'x-api-key',
  'api-key',
  'proxy-authorization',
  ...OPTION_HEADERS.filter(([field]) => SECRET_OPTIONS.has(field)).map(([, header]) => header),
];

/**
 * Remembers every credential the request carries in its headers for the redactor (an
 * Authorization value stands for its bare token too), so none is echoed in an answer or log.
 */
export function rememberRequestCredentials(ctx: GatewayContext<any>): void {
  for (const name of CREDENTIAL_HEADERS) {
    const value = headerValue(ctx.headers, name);
    // Each value once (the provider key is usually remembered already): every answer searches each.
    if (value && !ctx.secrets.includes(value)) ctx.secrets.push(value);
  }
  const account = headerValue(ctx.headers, 'x-gateway-vertex-service-account-json');
  if (account) {
    try {
      const key = (JSON.parse(account) as { private_key?: unknown }).private_key;
      if (typeof key === 'string') ctx.secrets.push(key);
    } catch {
      // Not JSON: the raw value was remembered.
    }
  }
}
