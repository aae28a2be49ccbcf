import { createHash } from 'node:crypto';
import { headerValue } from '../../kernel/engine/context.js';
import { BODY } from '../../kernel/engine/request-body.js';
import { badRequest } from '../../contract/errors/gateway-error.js';
import { credentialTenant, PROVIDER, PROVIDER_KEY, type ModelContext, type ProviderRegistry } from '../models/index.js';
import { GATEWAY_FILE_PREFIX } from './gateway-files.js';
import { GATEWAY_KEY_HEADERS } from '../auth/index.js';

type GatewayContext = ModelContext;

export const GATEWAY_BATCH_PREFIX = 'batch-gw-';
export const BATCH_MODE_HEADER = 'x-gateway-batch-mode';

/** `x-gateway-batch-mode`: `gateway` (the gateway keeps files and runs batches) or `provider`. */
export function batchModeHeader(ctx: GatewayContext): 'gateway' | 'provider' | undefined {
  const value = headerValue(ctx.headers, BATCH_MODE_HEADER)?.trim().toLowerCase();
  if (value === undefined || value === '') return undefined;
  if (value !== 'gateway' && value !== 'provider') throw badRequest(`${BATCH_MODE_HEADER} must be gateway or provider.`, BATCH_MODE_HEADER);
  return value;
}

/**
 * Whether the gateway serves this files or batches request itself: ids it issued (file-gw-,
 * batch-gw-, a batch over a file-gw- input) always; otherwise when the header asks for it, or
 * when the named provider has no API for the operation.
 */
export function servedByGateway(ctx: GatewayContext, providers: ProviderRegistry): boolean {
  const id = ctx.params.file_id ?? ctx.params.batch_id;
  if (id?.startsWith(GATEWAY_FILE_PREFIX) || id?.startsWith(GATEWAY_BATCH_PREFIX)) return true;
  if (ctx.endpoint.operation === 'batches.create' && String(ctx.get(BODY)?.input_file_id ?? '').startsWith(GATEWAY_FILE_PREFIX)) return true;
  const mode = batchModeHeader(ctx);
  if (mode) return mode === 'gateway';
  const named = ctx.get(PROVIDER);
  const provider = named ? providers.get(named) : undefined;
  return provider !== undefined && provider.operations[ctx.endpoint.operation] === undefined;
}

/**
 * Whose files and batches these are, hashed: the provider and the provider key, and the gateway
 * credential when the request carries one (a key the gateway holds serves many tenants, none of
 * which brings a provider key: the gateway key tells them apart). Without either, the keys of
 * the caller's own routing config (`callerKeys`) stand for the provider key.
 */
export function ownerScope(ctx: GatewayContext, callerKeys?: readonly string[]): string {
  const provider = ctx.get(PROVIDER);
  if (!provider) throw badRequest('Files and batches kept by the gateway need x-gateway-provider.', 'x-gateway-provider');
  const key = ctx.get(PROVIDER_KEY) ?? '';
  const tenant = credentialTenant(ctx);
  let owner = `${provider}\n${key}`;
  if (tenant !== undefined) owner += `\nidentity:${tenant}`;
  else if (!key && callerKeys?.length) owner += `\nconfig-keys:${[...callerKeys].sort().join('\n')}`;
  return createHash('sha256').update(owner).digest('hex');
}

/** The gateway key's headers, found by name as they come in (lower case). */
const KEY_HEADERS = new Set<string>(GATEWAY_KEY_HEADERS);

/**
 * The headers a batch line is sent with: the provider, its key and settings, routing config,
 * and the gateway key in whichever header it came (x-api-key and api-key too, so that each
 * line is charged to the key and counted by its limits as the batch's own requests were).
 */
export function credentialHeaders(ctx: GatewayContext): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(ctx.headers)) {
    if (typeof value !== 'string') continue;
    if (name === BATCH_MODE_HEADER || name === 'x-gateway-debug') continue;
    if (KEY_HEADERS.has(name) || name.startsWith('x-gateway-')) out[name] = value;
  }
  return out;
}
