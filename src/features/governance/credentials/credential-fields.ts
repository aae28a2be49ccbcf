import { type ProviderRegistry, callerValueProblem, headerSafe } from '../../models/index.js';

/** Fields of a credential that are not the provider's. */
const OWN_FIELDS = new Set(['provider', 'description', 'name']);
/** Fields whose values are secrets (the others, such as an Azure resource name, are settings). */
const SECRET_FIELDS = new Set(['api_key', 'aws_access_key_id', 'aws_secret_access_key', 'aws_session_token', 'vertex_service_account_json']);

/** The provider fields of a credential (api_key and the provider's settings), without provider, name and description. */
export function providerFields(raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) if (!OWN_FIELDS.has(k) && v !== undefined) out[k] = v;
  return out;
}

/**
 * What is wrong with a credential's fields: each must be api_key or a setting its provider
 * declares (ProviderInstance.settingFields), a non-empty string (the service account JSON may
 * be an object), header-safe, and match the pattern of values that become part of a URL.
 * Lines start with the field name.
 */
export function credentialProblems(provider: string, fields: Record<string, unknown>, providers: ProviderRegistry): string[] {
  const instance = providers.get(provider);
  if (!instance) return [`provider: unknown provider "${provider}" (known: ${providers.ids().join(', ')})`];
  const allowed = ['api_key', ...(instance.settingFields ?? [])];
  const problems: string[] = [];
  for (const [field, value] of Object.entries(fields)) {
    if (!allowed.includes(field)) {
      problems.push(`${field}: is not a field of provider ${provider} (its fields: ${allowed.join(', ')})`);
      continue;
    }
    if (field === 'vertex_service_account_json' && value !== null && typeof value === 'object' && !Array.isArray(value)) continue;
    if (typeof value !== 'string' || value === '') {
      problems.push(`${field}: must be a non-empty string`);
      continue;
    }
    if (!headerSafe(value)) problems.push(`${field}: must not contain line breaks, NUL or characters a header cannot carry`);
    const problem = callerValueProblem(field, value);
    if (problem) problems.push(`${field}: ${problem}`);
  }
  return problems;
}

/** The secret values of a credential's fields (the service account's private key included), for the redactor. */
export function fieldSecrets(fields: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [field, value] of Object.entries(fields)) {
    if (!SECRET_FIELDS.has(field)) continue;
    if (typeof value === 'string') {
      out.push(value);
      if (field === 'vertex_service_account_json') {
        try {
          const key = (JSON.parse(value) as { private_key?: unknown }).private_key;
          if (typeof key === 'string') out.push(key);
        } catch {
          // Not JSON: the raw value is kept.
        }
      }
    } else if (value && typeof value === 'object') {
      out.push(JSON.stringify(value));
      const key = (value as { private_key?: unknown }).private_key;
      if (typeof key === 'string') out.push(key);
    }
  }
  return out;
}

/** The last 4 characters of the credential's main secret (its api_key, else its first secret), shown instead of the value; empty for short values. */
export function lastFour(fields: Record<string, unknown>): string {
  const main = typeof fields.api_key === 'string' ? fields.api_key : fieldSecrets(fields)[0];
  return typeof main === 'string' && main.length >= 12 ? main.slice(-4) : '';
}
