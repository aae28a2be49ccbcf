import type { GatewayConfig } from '../../generated/gateway.js';
import { isSecretField, maskable } from '../errors/redact.js';
import { configSecrets } from './config-secrets.js';
import { maskQueryValues } from './url-query.js';

const REDACTED = '[REDACTED]';

/** The config with every secret it holds shown as [REDACTED] (whole values, passwords and query values inside URLs). */
export function redactedConfig(config: GatewayConfig): unknown {
  const all = [...new Set(configSecrets(config))].filter((s) => s.length > 0);
  const whole = new Set(all);
  // Inside longer text only values the redactor masks there (a short query value such as `v=2` would hit every "2").
  const secrets = all.filter(maskable).sort((a, b) => b.length - a.length);
  const mask = (text: string): string => {
    if (whole.has(text)) return REDACTED;
    let out = maskQueryValues(text, REDACTED);
    for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    // A password inside a URL is also shown encoded there.
    for (const secret of secrets) {
      const encoded = encodeURIComponent(secret);
      if (encoded !== secret && out.includes(encoded)) out = out.split(encoded).join(REDACTED);
    }
    return out;
  };
  const walk = (node: unknown, key: string): unknown => {
    if (typeof node === 'string') return isSecretField(key) && node !== '' ? REDACTED : mask(node);
    if (Array.isArray(node)) return node.map((v) => walk(v, key));
    if (node && typeof node === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(node as Record<string, unknown>)) out[k] = walk(v, k);
      return out;
    }
    return node;
  };
  return walk(config, '');
}
