// The admin console: hash routing over the pages, a login form that trades the admin token (or
// a gateway key with an admin role) for the admin API's session cookie, and nothing else: every
// read and write is a call of the public admin API, which enforces roles, CSRF and read-only.
import { api, ApiError, currentSession, login, logout, type Session } from './api.js';
import { errorBox, h } from './dom.js';
import * as pages from './pages.js';

const ROUTES: { path: string; title: string; render: (view: pages.View) => Promise<void> }[] = [
  { path: 'overview', title: 'Overview', render: pages.overview },
  { path: 'keys', title: 'Keys', render: pages.keys },
  { path: 'tenants', title: 'Organisations & teams', render: pages.tenants },
  { path: 'budgets', title: 'Budgets', render: pages.budgets },
  { path: 'usage', title: 'Usage', render: pages.usage },
  { path: 'requests', title: 'Live requests', render: pages.requests },
  { path: 'models', title: 'Models', render: pages.models },
  { path: 'tools', title: 'Tool servers', render: pages.toolServers },
  { path: 'credentials', title: 'Credentials', render: pages.credentials },
  { path: 'config', title: 'Config', render: pages.config },
  { path: 'audit', title: 'Audit log', render: pages.audit },
];

const main = document.getElementById('main')!;
const nav = document.getElementById('nav')!;
const who = document.getElementById('who')!;
let session: Session | undefined;

function showLogin(message?: string): void {
  session = undefined;
  nav.hidden = true;
  who.replaceChildren();
  pages.stopLive();
  const token = h('input', { type: 'password', name: 'token', required: true, autocomplete: 'off', id: 'login-token' });
  const form = h(
    'form',
    {
      'aria-label': 'Log in',
      onsubmit: (e: Event) => {
        e.preventDefault();
        login(token.value).then(
          (s) => {
            token.value = '';
            session = s;
            start();
          },
          (err) => showLogin(err instanceof Error ? err.message : String(err)),
        );
      },
    },
    h('label', { for: 'login-token' }, 'Admin token or a gateway key with an admin role'),
    token,
    ' ',
    h('button', { type: 'submit', class: 'primary' }, 'Log in'),
  );
  // Single sign-on, when the gateway has an OpenID provider (auth.type oauth): a plain link to the API's login redirect.
  const sso = h('p', { id: 'sso' });
  main.replaceChildren(h('h1', {}, 'Log in'), form, sso, message ? errorBox(message) : '');
  token.focus();
  api<{ enabled: boolean; provider: string }>('GET', '/v1/admin/session/oidc?probe=1').then(
    (r) => {
      if (r.enabled && sso.isConnected) sso.replaceChildren('or ', h('a', { href: '/v1/admin/session/oidc' }, `Log in with ${r.provider}`));
    },
    () => undefined,
  );
}

function start(): void {
  if (!session) return;
  nav.hidden = false;
  nav.replaceChildren(...ROUTES.map((r) => h('a', { href: `#/${r.path}`, 'data-page': r.path }, r.title)));
  who.replaceChildren(
    `${session.user ?? 'admin'} · ${session.role}${session.read_only ? ' · read-only' : ''} `,
    h(
      'button',
      {
        type: 'button',
        onclick: () =>
          void logout()
            .catch(() => undefined)
            .then(() => showLogin()),
      },
      'Log out',
    ),
  );
  void route();
}

async function route(): Promise<void> {
  if (!session) return;
  const path = location.hash.replace(/^#\/?/, '') || 'overview';
  const page = ROUTES.find((r) => r.path === path) ?? ROUTES[0]!;
  for (const a of nav.querySelectorAll('a')) {
    if (a.dataset.page === page.path) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  document.title = `${page.title} · Gateway console`;
  pages.stopLive();
  // Each visit renders into its own box: a page still loading when the user moves on writes into a
  // box no longer shown, never into the next page.
  const box = h('div', { class: 'page' });
  main.replaceChildren(box);
  const current = box;
  const view: pages.View = { session, canWrite: !session.read_only && session.role !== 'viewer', main: box };
  try {
    await page.render(view);
  } catch (err) {
    if (!current.isConnected) return;
    if (err instanceof ApiError && err.status === 401) return showLogin('Your session has ended: log in again.');
    box.append(errorBox(err));
  }
}

window.addEventListener('hashchange', () => void route());
currentSession().then(
  (s) => {
    session = s;
    start();
  },
  () => showLogin(),
);
