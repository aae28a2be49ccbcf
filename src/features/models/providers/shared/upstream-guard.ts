import { badRequest } from '../../../../contract/errors/gateway-error.js';
import type { UpstreamRequest } from './upstream-request.js';
import type { OperationAdapter, ProviderCall, ProviderInstance, ProviderSettings } from '../provider.js';
import { addressFields, callerValueProblem, headerSafe, settingHeader } from './caller-values.js';
import { headerFieldNames, hostFieldOf } from './provider-fields.js';

/** Headers that carry the provider key, whatever the provider calls them. */
const KEY_HEADERS = new Set(['authorization', 'api-key', 'x-api-key', 'x-goog-api-key']);

/** Origins of configured base URLs (a handful per gateway), parsed once. */
const ORIGINS = new Map<string, string | undefined>();

function origin(url: string): string | undefined {
  let known = ORIGINS.get(url);
  if (known !== undefined || ORIGINS.has(url)) return known;
  try {
    known = new URL(url).origin;
  } catch {
    known = undefined;
  }
  // Custom hosts come from requests: only so many are remembered.
  if (ORIGINS.size > 1024) ORIGINS.clear();
  ORIGINS.set(url, known);
  return known;
}

/**
 * Checks what a caller sent before the provider builds anything from it: every setting that
 * becomes part of a URL against its strict pattern, and the key and every setting that becomes
 * a header free of CR, LF, NUL and characters no header may carry. A refusal is a 400 naming
 * the parameter; nothing is sent.
 */
export function checkCallerValues(call: ProviderCall, provider: string): void {
  const options = call.target.options ?? {};
  for (const field of addressFields()) {
    const problem = callerValueProblem(field, options[field]);
    if (problem) throw badRequest(`${settingHeader(field)} (${field} of a routing target) ${problem}.`, settingHeader(field));
  }
  if (call.apiKey !== undefined && !headerSafe(call.apiKey)) {
    throw badRequest(`The ${provider} key must not contain line breaks, NUL or other characters a header cannot carry.`, 'x-gateway-api-key');
  }
  for (const field of headerFieldNames()) {
    const value = options[field];
    if (value === undefined || value === null || value === '') continue;
    if (typeof value !== 'string' || !headerSafe(value)) {
      throw badRequest(`${settingHeader(field)} must be text without line breaks, NUL or other characters a header cannot carry.`, settingHeader(field));
    }
  }
}

/**
 * Checks the upstream request a provider built: a valid http(s) URL without user info, whose
 * path is the one the provider wrote (no dot segments a parameter smuggled in), going to the
 * origin the operator configured (providers.<id>.baseUrl, or an allowed custom host) or else
 * to one of the provider's own public hosts; and header values a header can carry.
 */
export function checkUpstreamRequest(req: UpstreamRequest, call: ProviderCall, provider: ProviderInstance, settings: ProviderSettings): void {
  const configured = call.target.baseUrl ?? (typeof settings.baseUrl === 'string' ? settings.baseUrl : undefined);
  if (!knownGood(req.url, provider.id, configured)) checkUrl(req, call, provider, configured);
  for (const name in req.headers) {
    const value = req.headers[name];
    if (typeof value === 'string' && !headerSafe(value)) {
      const param = KEY_HEADERS.has(name.toLowerCase()) ? 'x-gateway-api-key' : name.toLowerCase();
      throw badRequest(`The ${name} header for ${provider.id} would hold line breaks, NUL or characters a header cannot carry.`, param);
    }
  }
}

/**
 * URLs that passed the check, per provider and configured base URL: the same few addresses
 * come back on every request (a bounded number is remembered).
 */
const GOOD_URLS = new Map<string, true>();

function urlKey(url: string, provider: string, configured: string | undefined): string {
  return `${provider}\u0000${configured ?? ''}\u0000${url}`;
}

function knownGood(url: string, provider: string, configured: string | undefined): boolean {
  return GOOD_URLS.has(urlKey(url, provider, configured));
}

function checkUrl(req: UpstreamRequest, call: ProviderCall, provider: ProviderInstance, configured: string | undefined): void {
  const hostField = hostFieldOf(provider.id);
  const hostParam = hostField ? settingHeader(hostField) : 'x-gateway-provider';
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    throw badRequest(`The request would build no valid ${provider.id} address: check the provider settings it sends.`, hostParam);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password) {
    throw badRequest(`The request would send ${provider.id} traffic to an address it does not own: check the provider settings it sends.`, hostParam);
  }
  const rawPath = req.url
    .slice(req.url.indexOf('//') + 2)
    .replace(/^[^/?#]*/, '')
    .replace(/[?#].*$/s, '');
  if (url.pathname !== (rawPath || '/')) {
    throw badRequest(`A path parameter of this request ('.', '..' or characters a path cannot hold) would change the ${provider.id} address.`, pathParam(call));
  }
  const expected = configured !== undefined ? origin(configured) : provider.hosts ? undefined : origin(provider.baseUrl);
  const own = expected !== undefined ? url.origin === expected : provider.hosts ? url.protocol === 'https:' && provider.hosts.test(url.host) : true;
  if (!own) {
    throw badRequest(`The request would send ${provider.id} traffic to ${url.host}, which is not a ${provider.id} host: check the provider settings it sends.`, hostParam);
  }
  if (GOOD_URLS.size >= 4096) GOOD_URLS.clear();
  GOOD_URLS.set(urlKey(req.url, provider.id, configured), true);
}

/** The parameter a bad path value came from: an id in the path, else the model. */
function pathParam(call: ProviderCall): string {
  for (const [name, value] of Object.entries(call.params ?? {})) if (/^(\.|%2e){1,2}$/i.test(value) || /[\\/]/.test(value)) return name;
  return 'model';
}

/** A provider whose every upstream request is checked (caller values before, the result after). */
export function guardProvider(instance: ProviderInstance): ProviderInstance {
  const operations: ProviderInstance['operations'] = {};
  for (const [op, adapter] of Object.entries(instance.operations) as Array<[keyof ProviderInstance['operations'], OperationAdapter]>) {
    const check = (built: UpstreamRequest, call: ProviderCall): UpstreamRequest => {
      checkUpstreamRequest(built, call, instance, instance.settings);
      return built;
    };
    operations[op] = {
      ...adapter,
      // A provider that builds its request synchronously (most) is checked in the same turn.
      request(call, provider) {
        checkCallerValues(call, instance.id);
        const built = adapter.request(call, provider);
        return built instanceof Promise ? built.then((b) => check(b, call)) : check(built, call);
      },
    };
  }
  return { ...instance, operations };
}

/** Problems of a provider's configured headers (one line each), checked at start-up. */
export function settingsProblems(id: string, settings: ProviderSettings): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(settings.headers ?? {})) {
    if (typeof value === 'string' && !headerSafe(value)) out.push(`providers.${id}.headers.${name}: must not contain line breaks, NUL or characters a header cannot carry`);
  }
  return out;
}
