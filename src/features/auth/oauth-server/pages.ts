/** The HTML of the authorization server's pages: login and consent (no script, nothing external). */

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => escapes[c]!);

/** Headers of every page: no framing, no caching, no referrer, nothing loaded from elsewhere. */
export const PAGE_HEADERS: Record<string, string> = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#222}' +
  'form{margin:1rem 0}input[type=password]{width:100%;padding:.5rem;box-sizing:border-box}' +
  'button{padding:.5rem 1rem;margin-right:.5rem}.error{color:#a00}dt{font-weight:600;margin-top:.5rem}';

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;

export interface LoginPage {
  request: string;
  csrf: string;
  clientName: string;
  gatewayKey: boolean;
  oidc?: string;
  error?: string;
}

export function loginPage(p: LoginPage): string {
  let body = `<h1>Sign in</h1><p><strong>${escapeHtml(p.clientName)}</strong> asks to use this gateway's tools on your behalf.</p>`;
  if (p.error) body += `<p class="error" role="alert">${escapeHtml(p.error)}</p>`;
  if (p.gatewayKey) {
    body +=
      `<form method="post" action="/oauth/login" autocomplete="off">${hidden('request', p.request)}${hidden('csrf', p.csrf)}${hidden('method', 'gateway-key')}` +
      `<label for="key">Gateway key</label><input id="key" type="password" name="key" required><p><button type="submit">Sign in with a gateway key</button></p></form>`;
  }
  if (p.oidc) {
    body += `<form method="post" action="/oauth/login">${hidden('request', p.request)}${hidden('csrf', p.csrf)}${hidden('method', 'oidc')}<button type="submit">Sign in with ${escapeHtml(p.oidc)}</button></form>`;
  }
  return page('Sign in', body);
}

export interface ConsentPage {
  request: string;
  csrf: string;
  clientName: string;
  clientId: string;
  user: string;
  scopes: string[];
  resource: string;
  redirectHost: string;
}

export function consentPage(p: ConsentPage): string {
  const scopes = p.scopes.length ? `<ul>${p.scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join('')}</ul>` : '<p>No scopes.</p>';
  const body =
    `<h1>Allow access?</h1><p>Signed in as <strong>${escapeHtml(p.user)}</strong>.</p>` +
    `<dl><dt>Application</dt><dd>${escapeHtml(p.clientName)} <small>(${escapeHtml(p.clientId)})</small></dd>` +
    `<dt>Returns to</dt><dd>${escapeHtml(p.redirectHost)}</dd><dt>Resource</dt><dd><code>${escapeHtml(p.resource)}</code></dd><dt>Scopes</dt><dd>${scopes}</dd></dl>` +
    `<form method="post" action="/oauth/consent">${hidden('request', p.request)}${hidden('csrf', p.csrf)}` +
    `<button type="submit" name="decision" value="approve">Allow</button><button type="submit" name="decision" value="deny">Deny</button></form>`;
  return page('Allow access?', body);
}
