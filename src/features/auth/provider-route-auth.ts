import { headerValue, type GatewayContext } from '../../kernel/engine/context.js';
import type { GatewayConfig } from '../../generated/gateway.js';
import { badRequest, forbidden } from '../../contract/errors/gateway-error.js';
import { GATEWAY_KEY } from './gateway-key.js';
import { unauthenticated } from './challenge.js';
import type { ConfigKeys } from './config-keys.js';
import { checkGatewayCredential, type CredentialCheck } from './gateway-credentials.js';
import { publicBaseUrl } from './public-url.js';
import { TOKEN_PREFIX } from './secrets.js';
import type { TokenService } from './token-service.js';
import { insecureTransportError } from './transport-security.js';

/** The headers a gateway key may come in on provider routes (contract section 8). */
export const GATEWAY_KEY_HEADERS = ['x-gateway-token', 'authorization', 'x-api-key', 'api-key'] as const;

/** A gateway key as a provider-route request presents it, and the header that carries it. */
export interface PresentedKey {
  value: string;
  header: (typeof GATEWAY_KEY_HEADERS)[number];
}

/**
 * Checks a gateway credential on a provider route and sets ctx.identity and the GATEWAY_KEY
 * slot; a refusal is thrown. A promise only when the check had to wait for the store.
 */
export interface ProviderRouteAuthenticator {
  authenticate(ctx: GatewayContext, required: boolean, presented?: PresentedKey): Promise<void> | undefined;
}

/** 1 to 256 characters, none of them a control character. */
const customerOk = (value: string): boolean => value.length <= 256 && ![...value].some((c) => c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127);

function bearer(ctx: GatewayContext): string | undefined {
  const auth = headerValue(ctx.headers, 'authorization');
  if (!auth || auth.length <= 7 || auth.slice(0, 7).toLowerCase() !== 'bearer ') return undefined;
  return auth.slice(7).trim() || undefined;
}

/**
 * The gateway key of a provider-route request (contract section 8): x-gateway-token, else a
 * `gwt_` value in Authorization: Bearer (the openai SDK's apiKey), x-api-key (the Anthropic
 * SDK) or api-key (Azure's SDK). With auth.providerRoutes (`demand`) a value without the prefix
 * is a gateway credential too (a config key): the bearer's, else x-api-key's or api-key's; a
 * `gwt_` value elsewhere still comes first (the bearer is then an SDK's placeholder). Without
 * `demand` a bearer value without the prefix stays the provider's key.
 */
export function presentedGatewayKey(ctx: GatewayContext, demand: boolean): PresentedKey | undefined {
  const token = headerValue(ctx.headers, 'x-gateway-token')?.trim();
  if (token) return { value: token, header: 'x-gateway-token' };
  const fromBearer = bearer(ctx);
  if (fromBearer?.startsWith(TOKEN_PREFIX)) return { value: fromBearer, header: 'authorization' };
  for (const header of ['x-api-key', 'api-key'] as const) {
    const value = headerValue(ctx.headers, header)?.trim();
    if (value && (value.startsWith(TOKEN_PREFIX) || (demand && !fromBearer))) return { value, header };
  }
  return demand && fromBearer ? { value: fromBearer, header: 'authorization' } : undefined;
}

/**
 * The gateway credential of the authenticate stage on provider routes: a gateway token or
 * config key sets ctx.identity (for logs, limits and identity forwarding) and the GATEWAY_KEY
 * slot; it is demanded when auth.providerRoutes is true. A blocked key is a 403. A key whose
 * metadata says `assertsCustomer: true` may name the end customer in x-gateway-customer.
 */
export function createProviderRouteAuth(config: GatewayConfig, tokens: TokenService, keys: ConfigKeys): ProviderRouteAuthenticator {
  /** The checked credential on the request: ctx.identity and the GATEWAY_KEY slot, or its refusal. */
  const admit = (ctx: GatewayContext, presented: PresentedKey, result: CredentialCheck): void => {
    if (!result.ok) {
      if (result.blocked) throw forbidden(`${presented.header}: ${result.message}`);
      throw unauthenticated(`${presented.header}: ${result.message}`, publicBaseUrl(ctx.req, config));
    }
    ctx.identity = result.identity;
    let key = result.key;
    const customer = headerValue(ctx.headers, 'x-gateway-customer')?.trim();
    if (customer) {
      if (key.metadata?.assertsCustomer !== true) throw forbidden('x-gateway-customer: this key may not name a customer (its metadata does not set assertsCustomer: true).');
      if (!customerOk(customer)) throw badRequest('x-gateway-customer must be 1 to 256 characters without control characters.', 'x-gateway-customer');
      // the key is shared by every request that presents it: the customer goes on this request's copy
      key = { ...key, customer };
    }
    ctx.set(GATEWAY_KEY, key);
  };
  return {
    authenticate(ctx: GatewayContext, required: boolean, presented?: PresentedKey) {
      if (!presented) {
        if (required) {
          throw unauthenticated(
            'A gateway key is required on this route: send it in Authorization: Bearer, x-api-key, api-key or x-gateway-token.',
            publicBaseUrl(ctx.req, config),
          );
        }
        return undefined;
      }
      const value = presented.value;
      ctx.secrets.push(value);
      const insecure = insecureTransportError(ctx.req, config);
      if (insecure) throw insecure;
      const result = checkGatewayCredential(value, tokens, keys);
      if (result instanceof Promise) return result.then((checked) => admit(ctx, presented, checked));
      admit(ctx, presented, result);
      return undefined;
    },
  };
}
