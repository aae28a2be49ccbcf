import type { GatewayContext } from '../engine/context.js';
import { headerValue } from '../engine/context.js';

/** Provider-specific settings that travel as x-gateway-<field-with-dashes> headers. */
export const PROVIDER_OPTION_FIELDS = [
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
  'fireworks_account_id',
] as const;

const OPTION_HEADERS = PROVIDER_OPTION_FIELDS.map((field) => [field, `x-gateway-${field.replace(/_/g, '-')}`] as const);
const SECRET_OPTIONS = new Set(['aws_secret_access_key', 'aws_session_token', 'vertex_service_account_json', 'aws_access_key_id']);

/** The provider key: x-gateway-api-key, or else Authorization: Bearer <key>. */
export function providerKeyFrom(ctx: GatewayContext): string | undefined {
  const explicit = headerValue(ctx.headers, 'x-gateway-api-key');
  if (explicit) return explicit.trim();
  const auth = headerValue(ctx.headers, 'authorization');
  if (auth && auth.length > 7 && auth.slice(0, 7).toLowerCase() === 'bearer ') return auth.slice(7).trim() || undefined;
  return undefined;
}

/** Provider settings sent as headers; secret ones are remembered for redaction. */
export function providerOptionsFrom(ctx: GatewayContext): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const [field, header] of OPTION_HEADERS) {
    const value = headerValue(ctx.headers, header);
    if (value === undefined || value === '') continue;
    options[field] = value;
    if (SECRET_OPTIONS.has(field)) ctx.secrets.push(value);
  }
  return options;
}
