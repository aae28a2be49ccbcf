/** An absolute URL with a query string (`scheme://host/...?k=v`), as configured. */
const URL_WITH_QUERY = /^[a-z][a-z0-9+.-]*:\/\/[^?#\s]*\?[^#\s]/i;

/**
 * The values of a configured URL's query parameters (a tool server's `?token=...`, a webhook's
 * `?key=...`): each as written and as decoded (`%2B` is `+`, `+` is a space). None for a
 * string that is not an absolute URL with a query.
 */
export function queryValues(value: string): string[] {
  if (!URL_WITH_QUERY.test(value)) return [];
  const query = value.slice(value.indexOf('?') + 1).split('#')[0]!;
  const out = new Set<string>();
  for (const pair of query.split('&')) {
    const at = pair.indexOf('=');
    const raw = at < 0 ? '' : pair.slice(at + 1);
    if (!raw) continue;
    out.add(raw);
    for (const decoded of [raw.replace(/\+/g, ' '), raw]) {
      try {
        out.add(decodeURIComponent(decoded));
      } catch {
        // Not valid percent-encoding: the value as written stands.
      }
    }
  }
  return [...out];
}

/** Parameter names that carry credentials (`token`, `api_key`, `X-Amz-Signature`, `sig`, `code`...). */
const SECRET_NAME = /^k$|token|key|secret|sig|passw|pwd|auth|credential|session|code|jwt|bearer/i;
/** A value that looks generated rather than chosen: 16 characters or more, with letters and digits. */
const looksGenerated = (v: string): boolean => v.length >= 16 && /[a-z]/i.test(v) && /[0-9]/.test(v);

/**
 * The query values of a configured URL that are masked wherever they appear (answers, logs):
 * those of parameters named like credentials, and any value that looks generated. Ordinary
 * values (`api-version=2024-02-01`, `format=json`) stay readable in answers; `--print-config`
 * still hides every query value (maskQueryValues).
 */
export function secretQueryValues(value: string): string[] {
  if (!URL_WITH_QUERY.test(value)) return [];
  const query = value.slice(value.indexOf('?') + 1).split('#')[0]!;
  const out: string[] = [];
  for (const pair of query.split('&')) {
    const at = pair.indexOf('=');
    if (at < 0) continue;
    let name = pair.slice(0, at);
    try {
      name = decodeURIComponent(name);
    } catch {
      // The name as written.
    }
    const values = queryValues(`x://x?v=${pair.slice(at + 1)}`);
    if (SECRET_NAME.test(name) || values.some(looksGenerated)) out.push(...values);
  }
  return [...new Set(out)];
}

/** The URL with each query value shown as `mask` (for printing a config). */
export function maskQueryValues(value: string, mask: string): string {
  if (!URL_WITH_QUERY.test(value)) return value;
  const at = value.indexOf('?');
  const hash = value.indexOf('#', at);
  const query = value.slice(at + 1, hash < 0 ? undefined : hash);
  const masked = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq < 0 || eq === pair.length - 1 ? pair : `${pair.slice(0, eq + 1)}${mask}`;
    })
    .join('&');
  return `${value.slice(0, at + 1)}${masked}${hash < 0 ? '' : value.slice(hash)}`;
}
