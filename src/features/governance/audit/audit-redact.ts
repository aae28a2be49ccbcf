import { TOKEN_PREFIX } from '../../auth/index.js';

/** Field names that hold a secret: dropped from what the audit keeps, whatever their value. */
const SECRET_FIELD =
  /(^|[_-])(token|secret|password|passphrase|api_?key|secret_access_key|session_token|private_key|service_account_json|client_secret|authorization|credential_value)$/i;

/**
 * A copy of `value` fit for the audit log: fields named like secrets removed, gateway token
 * values and the request's known secrets (`secrets`) replaced by [REDACTED] wherever they appear.
 */
export function auditSafe(value: unknown, secrets: readonly string[] = []): unknown {
  const known = secrets.filter((s) => s.length >= 8);
  const scrub = (text: string): string => {
    let out = text;
    for (const secret of known) if (out.includes(secret)) out = out.split(secret).join('[REDACTED]');
    return out.includes(TOKEN_PREFIX) ? out.replace(/gwt_[A-Za-z0-9_-]+/g, '[REDACTED]') : out;
  };
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return scrub(v);
    if (v === null || typeof v !== 'object') return v;
    if (depth > 32) return '[TOO DEEP]';
    if (Array.isArray(v)) return v.map((item) => walk(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [field, item] of Object.entries(v as Record<string, unknown>)) {
      if (SECRET_FIELD.test(field)) continue;
      out[scrub(field)] = walk(item, depth + 1);
    }
    return out;
  };
  return walk(value, 0);
}
