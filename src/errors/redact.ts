/**
 * Secret scrubbing for anything that leaves the process (answers, logs, debug fields).
 * `redactSecrets` masks known secret values wherever they appear in text; `redactObject`
 * masks fields whose names say they carry a secret.
 */
const SECRET_FIELD = /^(authorization|proxy-authorization|x-gateway-api-key|x-gateway-token|api[-_]?key|x-api-key|cookie|set-cookie|.*secret.*|.*password.*|.*token$|aws_session_token|vertex_service_account_json|private_key)$/i;
export const REDACTED = '[REDACTED]';

export function isSecretField(name: string): boolean {
  return SECRET_FIELD.test(name);
}

export function redactSecrets(text: string, secrets: Iterable<string | undefined>): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4 && out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  // Bearer values and common key shapes that were not known to us.
  return out
    .replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, `$1${REDACTED}`)
    .replace(/\b(sk|pk|rk|gsk|xai|key)-[A-Za-z0-9_-]{8,}/g, REDACTED);
}

export function redactObject<T>(value: T, secrets: Iterable<string | undefined> = [], depth = 0): T {
  if (depth > 8 || value === null || value === undefined) return value;
  if (typeof value === 'string') return redactSecrets(value, secrets) as T;
  if (Array.isArray(value)) return value.map((v) => redactObject(v, secrets, depth + 1)) as T;
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] = isSecretField(k) && v != null && v !== '' ? REDACTED : redactObject(v, secrets, depth + 1);
    }
    return out as T;
  }
  return value;
}
