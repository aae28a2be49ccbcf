import { isSecretField } from '../errors/redact.js';
import { registeredFeatures } from './features.js';
import { secretQueryValues } from './url-query.js';

/** Containers whose every value is a credential: the headers sent upstream (by providers, tool servers, webhooks, exporters); features declare theirs. */
const KERNEL_SECRET_CONTAINERS = ['headers'];

/**
 * The containers whose every value is a credential, and the fields that carry credentials
 * though they are not named like one, as the kernel and the registered features declare them
 * (field names an extension declares secret everywhere, with declareSecretFields, are secret
 * fields by name: isSecretField).
 */
function declaredSecrets(): { containers: Set<string>; options: Set<string> } {
  const containers = new Set(KERNEL_SECRET_CONTAINERS);
  const options = new Set<string>();
  for (const feature of registeredFeatures()) {
    for (const name of feature.secretContainers ?? []) containers.add(name);
    for (const name of feature.secretFields ?? []) options.add(name);
  }
  return { containers, options };
}

function urlPassword(value: string): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/@\s]*:[^/@\s]*@/i.test(value)) return undefined;
  try {
    const url = new URL(value);
    return url.password ? decodeURIComponent(url.password) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every secret a gateway config holds, for the redactor: values of fields named like a
 * credential (adminToken, clientSecret, signingSecret, api_key, apiKey, the fields extensions
 * declare secret, ...), every value under `headers` (providers, tool servers, webhooks,
 * exporters) and under the containers features declare secret (a tool server's `env`), the
 * fields features declare secret (`auth.apiKeys[].key`), service-account JSON (and its private
 * key), the password of any URL (storage.url, redis.url), and every query value of any URL (a
 * tool server's `url`, a provider's `baseUrl`, a webhook, the OTLP endpoint: `?token=...`).
 */
export function configSecrets(config: unknown): string[] {
  const { containers, options } = declaredSecrets();
  const out: string[] = [];
  const add = (value: unknown) => {
    if (typeof value === 'string' && value) out.push(value);
    else if (value && typeof value === 'object') {
      out.push(JSON.stringify(value));
      const key = (value as Record<string, unknown>).private_key;
      if (typeof key === 'string') out.push(key);
    }
  };
  const walk = (node: unknown, key: string, parent: string, depth: number): void => {
    if (depth > 32 || node === null || node === undefined) return;
    if (typeof node === 'string') {
      // A `key` under `ssl` is a file path (server.ssl.key), never a secret.
      if (containers.has(parent) || isSecretField(key) || (options.has(key) && parent !== 'ssl')) add(node);
      const password = urlPassword(node);
      if (password) out.push(password);
      for (const v of secretQueryValues(node)) out.push(v);
      // A secret that is a JSON document (a service account key): its private key too.
      if (isSecretField(key) && node.trimStart().startsWith('{')) {
        try {
          add(JSON.parse(node));
        } catch {
          // Not JSON: the raw value was added.
        }
      }
      return;
    }
    if (Array.isArray(node)) {
      for (const item of node) walk(item, key, parent, depth + 1);
      return;
    }
    if (typeof node === 'object') {
      if (isSecretField(key) && !containers.has(key)) add(node);
      for (const [k, v] of Object.entries(node as Record<string, unknown>)) walk(v, k, key, depth + 1);
    }
  };
  walk(config, '', '', 0);
  return out;
}
