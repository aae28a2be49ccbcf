// The console's pages: each renders into <main> from the public admin API alone.
import { api, ApiError, query, type Page, type Session } from './api.js';
import { barChart } from './chart.js';
import { badge, errorBox, h, table, time } from './dom.js';

export interface View {
  session: Session;
  /** Writes are offered (the API still decides: a viewer or ui.readOnly session is refused there). */
  canWrite: boolean;
  main: HTMLElement;
}

const DAY = 86_400_000;

function heading(view: View, title: string): void {
  view.main.replaceChildren(h('h1', {}, title));
  if (!view.canWrite)
    view.main.append(h('p', { class: 'notice' }, view.session.read_only ? 'This console is read-only (ui.readOnly).' : `Your role (${view.session.role}) reads only.`));
  else if (view.session.role === 'team_admin')
    view.main.append(h('p', { class: 'notice' }, `Your role (team_admin) manages the users, keys and budgets of the team ${view.session.team ?? '(none)'}.`));
}

/**
 * Whether to offer a write the session's role can make: `admin` writes (organisations, teams,
 * credentials, the config) need the admin role; the rest (users, keys) a team_admin makes too.
 * The API decides all the same: this only spares offering a button it always refuses.
 */
function mayWrite(view: View, needs: 'admin' | 'team'): boolean {
  return view.canWrite && (needs === 'team' || view.session.role === 'admin');
}

function money(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return '—';
  const n = Number(v);
  // A request costs fractions of a cent: enough decimals for two significant digits (at most 10).
  const decimals = n > 0 && n < 0.001 ? Math.min(10, 1 - Math.floor(Math.log10(n))) : 4;
  return `$${n.toFixed(decimals)}`;
}

/** A key value as lists show it: its prefix (gwt_) and its last four characters, never more. */
function maskedKey(last4: string | undefined): string {
  return last4 ? `gwt_…${last4}` : '—';
}

/** A value that is shown once (a new key): a copy button, then only its prefix and last four characters. */
function shownOnce(value: string, onDone: (masked: string) => void): HTMLElement {
  const masked = maskedKey(value.slice(-4));
  const status = h('span', { role: 'status', class: 'muted' });
  const box: HTMLElement = h(
    'div',
    { class: 'notice', role: 'region', 'aria-label': 'New key' },
    h('p', {}, h('strong', {}, 'Copy this key now: it is shown once and never again.')),
    h('p', {}, h('code', { class: 'secret', 'data-secret': 'true' }, value)),
    h(
      'button',
      {
        type: 'button',
        onclick: () => {
          navigator.clipboard?.writeText(value).then(
            () => (status.textContent = 'Copied.'),
            () => (status.textContent = 'Copy failed: select the key and copy it.'),
          );
        },
      },
      'Copy',
    ),
    ' ',
    h(
      'button',
      {
        type: 'button',
        class: 'primary',
        onclick: () => {
          box.remove();
          onDone(masked);
        },
      },
      'Done',
    ),
    ' ',
    status,
  );
  return box;
}

/** Previous/next buttons over a cursor list (`after`: the last item's id, or what `cursorOf` gives). */
function pager<T extends { id?: string }>(
  page: Page<T>,
  stack: (string | undefined)[],
  go: (after: string | undefined) => void,
  label: string,
  cursorOf: (item: T) => string = (item) => item.id!,
): HTMLElement {
  const last = page.data[page.data.length - 1];
  const next = last && cursorOf(last);
  return h(
    'div',
    { class: 'pager', role: 'navigation', 'aria-label': `${label} pages` },
    h('button', { type: 'button', disabled: stack.length <= 1, onclick: () => (stack.pop(), go(stack[stack.length - 1])) }, 'Previous'),
    h('span', { class: 'muted' }, `Page ${stack.length}`),
    h('button', { type: 'button', disabled: !page.has_more || !next, onclick: () => (stack.push(next), go(next)) }, 'Next'),
  );
}

// ---- Overview ----

export async function overview(view: View): Promise<void> {
  heading(view, 'Overview');
  const to = Date.now();
  const from = to - 14 * DAY;
  // The usage report and the recent requests need the admin or viewer role: a team_admin sees why instead.
  const [byDay, recent]: any[] = await Promise.all([
    api('GET', `/v1/admin/usage${query({ interval: 'day', from: new Date(from).toISOString(), to: new Date(to).toISOString() })}`).catch((err: unknown) => err),
    api<Page<any>>('GET', '/v1/admin/requests?limit=100').catch((err: unknown) => err),
  ]);
  for (const failed of [byDay, recent]) if (failed instanceof Error) return void view.main.append(errorBox(failed));
  const lines: any[] = byDay.data;
  const requests = lines.reduce((n, l) => n + l.requests, 0);
  const spend = lines.reduce((n, l) => n + Number(l.cost_usd), 0);
  const recentRows: any[] = recent.data;
  const latencies: number[] = recentRows.map((r) => r.latency_ms).sort((a, b) => a - b);
  const pct = (p: number) => (latencies.length ? `${latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]} ms` : '—');
  const errors = recentRows.filter((r) => r.status >= 400).length;
  const card = (label: string, value: string) => h('div', { class: 'card' }, h('div', { class: 'muted' }, label), h('div', { class: 'value' }, value));
  view.main.append(
    h(
      'div',
      { class: 'cards' },
      card('Requests (14 days)', String(requests)),
      card('Spend (14 days)', money(spend)),
      card('Errors (last 100)', String(errors)),
      card('Latency p50 (last 100)', pct(50)),
      card('Latency p99 (last 100)', pct(99)),
    ),
  );
  // One bar per day of the range (days without requests are 0).
  const byPeriod = new Map(lines.map((l) => [String(l.period).slice(0, 10), l]));
  const days: { label: string; requests: number; spend: number }[] = [];
  for (let t = Date.UTC(new Date(from).getUTCFullYear(), new Date(from).getUTCMonth(), new Date(from).getUTCDate()); t < to; t += DAY) {
    const key = new Date(t).toISOString().slice(0, 10);
    const line = byPeriod.get(key);
    days.push({ label: key.slice(5), requests: line?.requests ?? 0, spend: Number(line?.cost_usd ?? 0) });
  }
  view.main.append(
    barChart(
      'Requests per day',
      days.map((d) => ({ label: d.label, value: d.requests })),
    ),
    barChart(
      'Spend per day (USD)',
      days.map((d) => ({ label: d.label, value: d.spend })),
      (v) => money(v).slice(1),
    ),
  );
}

// ---- Keys ----

/** A key's limits as the list shows them: "rpm 60, tpm 10000, parallel 4", or — without any. */
function limitsText(t: any): string {
  const l = t.limits ?? {};
  const parts = [l.rpm !== undefined && `rpm ${l.rpm}`, l.tpm !== undefined && `tpm ${l.tpm}`, l.maxParallel !== undefined && `parallel ${l.maxParallel}`].filter(Boolean);
  return parts.join(', ') || '—';
}

/** A number field's value for a PATCH: null when empty (removes the limit), else the number (the API checks it). */
function numberOrNull(input: HTMLInputElement): number | null {
  return input.value.trim() === '' ? null : Number(input.value);
}

/**
 * The Edit form of a key: name, models (comma separated), rpm, tpm, maxParallel and one money
 * budget (limit_usd over a window). It sends PATCH /v1/auth/tokens/{id} with what the form holds
 * (an empty field removes that setting); the key's other budgets stay as they are. The API's
 * refusal is shown in the form.
 */
function keyEditForm(t: any, save: (body: Record<string, unknown>) => Promise<void>, cancel: () => void): HTMLFormElement {
  const budgets: any[] = t.budgets ?? [];
  const moneyAt = budgets.findIndex((b) => b.limit_usd !== undefined);
  const money = moneyAt >= 0 ? budgets[moneyAt] : undefined;
  const name = h('input', { name: 'name', autocomplete: 'off', value: t.name ?? '' });
  const models = h('input', { name: 'models', autocomplete: 'off', value: (t.models ?? []).join(', '), placeholder: 'all models' });
  const number = (field: string, value: number | undefined, step = '1') =>
    h('input', { name: field, type: 'number', min: step === '1' ? 1 : 0, step, inputmode: 'decimal', value: value ?? '' });
  const rpm = number('rpm', t.limits?.rpm);
  const tpm = number('tpm', t.limits?.tpm);
  const parallel = number('maxParallel', t.limits?.maxParallel);
  const limitUsd = number('limit_usd', money?.limit_usd, 'any');
  const period = h('select', { name: 'period' }, ...['day', 'week', 'month', 'total'].map((p) => h('option', { value: p, selected: (money?.window?.period ?? 'month') === p }, p)));
  const status = h('div', { 'aria-live': 'polite' });
  const form: HTMLFormElement = h(
    'form',
    {
      class: 'inline notice',
      'aria-label': `Edit key ${t.id}`,
      onsubmit: (e: Event) => {
        e.preventDefault();
        const list = models.value
          .split(',')
          .map((m) => m.trim())
          .filter(Boolean);
        const usd = numberOrNull(limitUsd);
        const edited = usd === null ? [] : [{ ...(money ?? {}), limit_usd: usd, window: { ...(money?.window ?? {}), period: period.value } }];
        // The money budget keeps its place in the list (so the spend counted on it carries on); a new one goes last.
        const nextBudgets = moneyAt >= 0 ? [...budgets.slice(0, moneyAt), ...edited, ...budgets.slice(moneyAt + 1)] : [...budgets, ...edited];
        const body = {
          name: name.value.trim() || null,
          models: list.length ? list : null,
          limits: { rpm: numberOrNull(rpm), tpm: numberOrNull(tpm), maxParallel: numberOrNull(parallel) },
          budgets: nextBudgets.length ? nextBudgets : null,
        };
        status.replaceChildren(h('p', { class: 'muted' }, 'Saving…'));
        save(body).catch((err: unknown) => status.replaceChildren(errorBox(err)));
      },
    },
    h('strong', {}, `Edit ${t.id}`),
    h('label', {}, 'Name', name),
    h('label', {}, 'Models (comma separated; empty: all)', models),
    h('label', {}, 'Requests per minute', rpm),
    h('label', {}, 'Tokens per minute', tpm),
    h('label', {}, 'Max parallel', parallel),
    h('label', {}, 'Budget (USD)', limitUsd),
    h('label', {}, 'Budget window', period),
    h('button', { type: 'submit', class: 'primary' }, 'Save'),
    h('button', { type: 'button', onclick: cancel }, 'Cancel'),
    status,
  );
  return form;
}

export async function keys(view: View): Promise<void> {
  heading(view, 'Keys');
  const state = { search: '', order: 'desc', stack: [undefined] as (string | undefined)[] };
  const notices = h('div', { 'aria-live': 'polite' });
  const editBox = h('div');
  const listBox = h('div');
  const load = async (after: string | undefined) => {
    try {
      const page = await api<Page<any>>('GET', `/v1/auth/tokens${query({ limit: 10, order: state.order, search: state.search, after })}`);
      listBox.replaceChildren(
        table(
          ['Key id', 'Value', 'User', 'Team', 'Name', 'Roles', 'Models', 'Limits', 'Created', 'Expires', 'State', 'Actions'],
          page.data.map((t) => [
            h('code', {}, t.id),
            h('code', {}, maskedKey(t.last4)),
            t.user,
            t.team ?? '—',
            t.name ?? '—',
            (t.roles ?? []).join(', ') || '—',
            t.models ? t.models.join(', ') || 'none' : 'all',
            limitsText(t),
            time(t.created_at),
            time(t.expires_at),
            t.revoked_at ? badge('revoked', 'bad') : t.blocked ? badge('blocked', 'bad') : badge('active', 'ok'),
            t.revoked_at ? '' : actions(t),
          ]),
          'Keys',
        ),
        pager(page, state.stack, (a) => void load(a), 'Keys'),
      );
    } catch (err) {
      listBox.replaceChildren(errorBox(err));
    }
  };
  const act = async (fn: () => Promise<unknown>) => {
    try {
      await fn();
      await load(state.stack[state.stack.length - 1]);
    } catch (err) {
      notices.replaceChildren(errorBox(err));
    }
  };
  const showSecret = (value: string, what: string) => {
    notices.replaceChildren(shownOnce(value, (masked) => notices.replaceChildren(h('p', { class: 'muted' }, `${what}: ${masked}`))));
  };
  const actions = (t: any) => {
    // A key of the config file (auth.apiKeys) changes there: the API answers 409 to every write.
    if (t.source === 'file') return badge('config file (read-only)');
    const grace = h(
      'select',
      { 'aria-label': `Grace period for rotating ${t.id}` },
      h('option', { value: '' }, 'no grace'),
      h('option', { value: '1h' }, '1 hour'),
      h('option', { value: '24h' }, '24 hours'),
    );
    return h(
      'span',
      {},
      grace,
      ' ',
      h(
        'button',
        {
          type: 'button',
          disabled: !view.canWrite,
          onclick: () =>
            void act(async () => {
              const rotated = await api('POST', `/v1/auth/tokens/${t.id}/rotate`, grace.value ? { gracePeriod: grace.value } : {});
              showSecret(rotated.token, `Rotated ${t.id}`);
            }),
        },
        'Rotate',
      ),
      ' ',
      h(
        'button',
        { type: 'button', disabled: !view.canWrite, onclick: () => void act(() => api('POST', `/v1/auth/tokens/${t.id}/${t.blocked ? 'unblock' : 'block'}`)) },
        t.blocked ? 'Unblock' : 'Block',
      ),
      ' ',
      h('button', { type: 'button', disabled: !view.canWrite, onclick: () => void act(() => api('DELETE', `/v1/auth/tokens/${t.id}`)) }, 'Revoke'),
      ' ',
      h('button', { type: 'button', disabled: !view.canWrite, 'aria-label': `Edit ${t.id}`, onclick: () => openEdit(t) }, 'Edit'),
    );
  };
  const openEdit = (t: any) => {
    const form = keyEditForm(
      t,
      async (body) => {
        await api('PATCH', `/v1/auth/tokens/${t.id}`, body);
        editBox.replaceChildren();
        notices.replaceChildren(h('p', { class: 'muted' }, `Saved ${t.id}.`));
        await load(state.stack[state.stack.length - 1]);
      },
      () => editBox.replaceChildren(),
    );
    editBox.replaceChildren(form);
    form.querySelector('input')?.focus();
  };
  const user = h('input', { name: 'user', required: true, autocomplete: 'off' });
  // A team_admin issues keys of its own team only, and grants no role beyond team_admin.
  const teamAdmin = view.session.role === 'team_admin';
  const team = h('input', { name: 'team', autocomplete: 'off', value: teamAdmin ? (view.session.team ?? '') : undefined, readonly: teamAdmin });
  const name = h('input', { name: 'name', autocomplete: 'off' });
  const role = h('select', { name: 'role' }, ...(teamAdmin ? ['', 'team_admin'] : ['', 'viewer', 'team_admin', 'admin']).map((r) => h('option', { value: r }, r || 'none')));
  const create = h(
    'form',
    {
      class: 'inline',
      'aria-label': 'Create a key',
      onsubmit: (e: Event) => {
        e.preventDefault();
        void act(async () => {
          const body: Record<string, unknown> = { user: user.value };
          if (team.value) body.team = team.value;
          if (name.value) body.name = name.value;
          if (role.value) body.roles = [role.value];
          const created = await api('POST', '/v1/auth/tokens', body);
          (create as HTMLFormElement).reset();
          if (teamAdmin) team.value = view.session.team ?? '';
          showSecret(created.token, `Created ${created.id}`);
        });
      },
    },
    h('label', {}, 'User', user),
    h('label', {}, 'Team', team),
    h('label', {}, 'Name', name),
    h('label', {}, 'Admin role', role),
    h('button', { type: 'submit', class: 'primary', disabled: !view.canWrite }, 'Create key'),
  );
  const search = h('input', { type: 'search', 'aria-label': 'Search keys', placeholder: 'Search id, user, team…' });
  const order = h('select', { 'aria-label': 'Order' }, h('option', { value: 'desc' }, 'Newest first'), h('option', { value: 'asc' }, 'Oldest first'));
  const filter = h(
    'form',
    {
      class: 'inline',
      role: 'search',
      'aria-label': 'Search keys',
      onsubmit: (e: Event) => {
        e.preventDefault();
        state.search = search.value;
        state.order = order.value;
        // In place: a pager drawn before this search holds the same stack (a click on it while the search loads stays coherent).
        state.stack.splice(0, state.stack.length, undefined);
        void load(undefined);
      },
    },
    search,
    order,
    h('button', { type: 'submit' }, 'Search'),
  );
  view.main.append(h('h2', {}, 'New key'), create, notices, editBox, h('h2', {}, 'Keys'), filter, listBox);
  await load(undefined);
}

// ---- Organisations, teams, users ----

export async function tenants(view: View): Promise<void> {
  heading(view, 'Organisations, teams and users');
  for (const [kind, title] of [
    ['organizations', 'Organisations'],
    ['teams', 'Teams'],
    ['users', 'Users'],
  ] as const) {
    const box = h('section', { 'aria-label': title });
    view.main.append(h('h2', {}, title), box);
    await resourceList(view, kind, box);
  }
}

async function resourceList(view: View, kind: 'organizations' | 'teams' | 'users', box: HTMLElement): Promise<void> {
  // Organisations and teams are the admin's; a team_admin adds and removes its own team's users.
  const writable = mayWrite(view, kind === 'users' ? 'team' : 'admin');
  const stack: (string | undefined)[] = [undefined];
  const listBox = h('div');
  const notices = h('div', { 'aria-live': 'polite' });
  let search = '';
  const load = async (after: string | undefined) => {
    try {
      const page = await api<Page<any>>('GET', `/v1/admin/${kind}${query({ limit: 10, after, search })}`);
      listBox.replaceChildren(
        table(
          ['Id', 'Name', kind === 'users' ? 'Team' : kind === 'teams' ? 'Organisation' : 'Created', 'Source', 'Actions'],
          page.data.map((o) => [
            h('code', {}, o.id),
            o.name ?? '—',
            kind === 'users' ? (o.team ?? '—') : kind === 'teams' ? (o.organization ?? '—') : time(o.created_at),
            o.source === 'file' ? badge('config file (read-only)') : badge('api'),
            o.source === 'file'
              ? ''
              : h(
                  'button',
                  {
                    type: 'button',
                    disabled: !writable,
                    onclick: () =>
                      void api('DELETE', `/v1/admin/${kind}/${encodeURIComponent(o.id)}`).then(
                        () => load(stack[stack.length - 1]),
                        (err) => notices.replaceChildren(errorBox(err)),
                      ),
                  },
                  'Delete',
                ),
          ]),
          kind,
        ),
        pager(page, stack, (a) => void load(a), kind),
      );
    } catch (err) {
      listBox.replaceChildren(errorBox(err));
    }
  };
  const id = h('input', { required: true, autocomplete: 'off' });
  const name = h('input', { autocomplete: 'off' });
  const searchBox = h('input', { type: 'search', 'aria-label': `Search ${kind}` });
  box.append(
    h(
      'form',
      {
        class: 'inline',
        'aria-label': `Add to ${kind}`,
        onsubmit: (e: Event) => {
          e.preventDefault();
          const body: Record<string, unknown> = { id: id.value };
          if (name.value) body.name = name.value;
          api('POST', `/v1/admin/${kind}`, body).then(
            () => {
              id.value = name.value = '';
              notices.replaceChildren();
              return load(undefined);
            },
            (err) => notices.replaceChildren(errorBox(err)),
          );
        },
      },
      h('label', {}, 'Id', id),
      h('label', {}, 'Name', name),
      h('button', { type: 'submit', disabled: !writable }, 'Add'),
    ),
    h(
      'form',
      {
        class: 'inline',
        role: 'search',
        'aria-label': `Search ${kind}`,
        onsubmit: (e: Event) => {
          e.preventDefault();
          search = searchBox.value;
          stack.splice(1);
          void load(undefined);
        },
      },
      searchBox,
      h('button', { type: 'submit' }, 'Search'),
    ),
    notices,
    listBox,
  );
  await load(undefined);
}

// ---- Budgets ----

function windowStart(period: string, now: Date): { from: Date; resets: Date } {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const d = now.getUTCDate();
  if (period === 'day') return { from: new Date(Date.UTC(y, m, d)), resets: new Date(Date.UTC(y, m, d + 1)) };
  if (period === 'week') {
    const back = (now.getUTCDay() + 6) % 7;
    return { from: new Date(Date.UTC(y, m, d - back)), resets: new Date(Date.UTC(y, m, d - back + 7)) };
  }
  return { from: new Date(Date.UTC(y, m, 1)), resets: new Date(Date.UTC(y, m + 1, 1)) };
}

const SCOPE_GROUP: Record<string, string> = { key: 'key', user: 'user', team: 'team', organization: 'organization', customer: 'customer', model: 'model' };

export async function budgets(view: View): Promise<void> {
  heading(view, 'Budgets');
  const page = await api<Page<any>>('GET', '/v1/admin/budgets?limit=100');
  const now = new Date();
  const spendCache = new Map<string, Map<string, number>>();
  const spendOf = async (scope: string, subject: string, period: string): Promise<number | undefined> => {
    const group = SCOPE_GROUP[scope];
    if (!group) return undefined;
    const cacheKey = `${group}/${period}`;
    if (!spendCache.has(cacheKey)) {
      const { from } = windowStart(period, now);
      const report = await api('GET', `/v1/admin/usage${query({ group_by: group, from: from.toISOString(), to: new Date(now.getTime() + 1000).toISOString() })}`);
      spendCache.set(cacheKey, new Map(report.data.map((l: any) => [String(l.group), Number(l.cost_usd)])));
    }
    return spendCache.get(cacheKey)!.get(subject) ?? 0;
  };
  const rows = [];
  let spendRefused: unknown;
  for (const b of page.data) {
    const period = b.window?.period ?? 'month';
    const spent = spendRefused
      ? undefined
      : await spendOf(b.scope, b.subject, period).catch((err: unknown) => {
          // The usage report is the admin's and the viewer's (a team_admin's: its team's): a role refused it sees no spend, and the page says why (once).
          if (err instanceof ApiError && err.status === 403) spendRefused = err;
          return undefined;
        });
    const limit = typeof b.limit_usd === 'number' ? b.limit_usd : undefined;
    const share = limit && spent !== undefined ? Math.min(1, spent / limit) : undefined;
    rows.push([
      h('code', {}, b.id),
      `${b.scope}: ${b.subject}`,
      limit === undefined ? (b.limit_tokens ? `${b.limit_tokens} tokens` : '—') : money(limit),
      spent === undefined ? '—' : money(spent),
      share === undefined
        ? '—'
        : h('progress', { max: 100, value: Math.round(share * 100), 'aria-label': `${b.scope} ${b.subject}: ${Math.round(share * 100)}% spent` }, `${Math.round(share * 100)}%`),
      `${period}, resets ${windowStart(period, now).resets.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
      b.source === 'file' ? badge('config file (read-only)') : badge('api'),
    ]);
  }
  if (spendRefused) view.main.append(h('p', { class: 'muted', role: 'status' }, `Spend is not shown: ${spendRefused instanceof Error ? spendRefused.message : ''}`));
  view.main.append(table(['Id', 'Scope', 'Limit', 'Spent', 'Progress', 'Window', 'Source'], rows, 'Budgets'));
}

// ---- Usage explorer ----

export async function usage(view: View): Promise<void> {
  heading(view, 'Usage explorer');
  const group = h('select', { 'aria-label': 'Group by' }, ...['model', 'provider', 'team', 'user', 'key', 'organization', 'customer'].map((g) => h('option', { value: g }, g)));
  const today = new Date().toISOString().slice(0, 10);
  const from = h('input', { type: 'date', 'aria-label': 'From', value: new Date(Date.now() - 30 * DAY).toISOString().slice(0, 10) });
  const to = h('input', { type: 'date', 'aria-label': 'To', value: today });
  const out = h('div');
  const params = () => ({ group_by: group.value, from: from.value, to: new Date(Date.parse(to.value) + DAY).toISOString().slice(0, 10) });
  const csv = h('a', { download: 'usage.csv' }, 'Download CSV');
  const run = async () => {
    csv.setAttribute('href', `/v1/admin/usage${query({ ...params(), format: 'csv' })}`);
    try {
      const report = await api('GET', `/v1/admin/usage${query(params())}`);
      out.replaceChildren(
        table(
          [group.value, 'Requests', 'Input tokens', 'Output tokens', 'Cost', 'Unpriced'],
          report.data.map((l: any) => [l.group ?? '—', l.requests, l.input_tokens, l.output_tokens, money(l.cost_usd), l.unpriced_requests]),
          'Usage',
        ),
      );
    } catch (err) {
      out.replaceChildren(errorBox(err));
    }
  };
  view.main.append(
    h(
      'form',
      {
        class: 'inline',
        onsubmit: (e: Event) => {
          e.preventDefault();
          void run();
        },
      },
      h('label', {}, 'Group by', group),
      h('label', {}, 'From', from),
      h('label', {}, 'To', to),
      h('button', { type: 'submit', class: 'primary' }, 'Show'),
      csv,
    ),
    out,
  );
  await run();
}

// ---- Live requests ----

let live: EventSource | undefined;

export function stopLive(): void {
  live?.close();
  live = undefined;
}

/** One request of the ledger with its upstream attempts (GET /v1/admin/requests/{id}): no bodies, the gateway keeps none. */
function requestDetail(d: any, close: () => void): HTMLElement {
  const attemptRows = (list: any[]) =>
    list.map((a: any, i: number) => [
      String(i + 1),
      a.provider,
      a.target ?? '—',
      a.status === null ? '—' : a.status >= 400 ? badge(String(a.status), 'bad') : String(a.status),
      `${a.latency_ms} ms`,
      a.skipped ? badge(`skipped: ${a.skipped}`, 'bad') : (a.error_type ?? '—'),
    ]);
  const heads = ['#', 'Provider', 'Target', 'Status', 'Latency', 'Error type'];
  return h(
    'section',
    { class: 'detail', 'aria-label': `Request ${d.request_id}`, 'data-detail-id': d.request_id },
    h('h2', {}, 'Request ', h('code', {}, d.request_id)),
    h(
      'p',
      {},
      `${new Date(d.at).toISOString().replace('T', ' ').slice(0, 23)} · ${d.route} · key ${d.key_id ?? '—'} · ${d.user ?? '—'} · team ${d.team ?? '—'} · ${d.model ?? '—'} at ${d.provider ?? '—'} · status ${d.status} · ${d.latency_ms} ms · tokens ${d.input_tokens} / ${d.output_tokens} · `,
      d.cost_usd === null ? badge('unpriced', 'bad') : money(d.cost_usd),
      d.estimated ? ' · tokens estimated' : '',
    ),
    h('h3', {}, 'Attempts'),
    d.attempts.length ? table(heads, attemptRows(d.attempts), 'Attempts') : h('p', { class: 'muted' }, 'No upstream attempt (answered by the gateway).'),
    ...(d.parts?.length
      ? [
          h('h3', {}, 'Calls of the tool loop'),
          table(
            ['#', 'Kind', 'Model or tool', 'Status', 'Latency', 'Tokens in / out', 'Cost'],
            d.parts.map((p: any) => [
              String(p.seq),
              p.kind,
              p.kind === 'tool' ? `${p.server ?? '—'} / ${p.tool ?? '—'}` : `${p.model ?? '—'} at ${p.provider ?? '—'}`,
              String(p.status),
              `${p.latency_ms} ms`,
              `${p.input_tokens} / ${p.output_tokens}${p.estimated ? ' (estimated)' : ''}`,
              p.cost_usd === null ? 'unpriced' : `$${p.cost_usd}`,
            ]),
            'Calls of the tool loop',
          ),
        ]
      : []),
    h('p', { class: 'muted' }, 'Request and answer bodies are not kept.'),
    h('button', { type: 'button', onclick: close }, 'Close'),
  );
}

export async function requests(view: View): Promise<void> {
  heading(view, 'Live requests');
  const status = h('p', { class: 'muted', role: 'status' }, 'Connecting…');
  const body = h('tbody');
  const detailBox = h('div', { 'aria-live': 'polite' });
  const open = (id: string, opener: HTMLElement) => {
    api('GET', `/v1/admin/requests/${encodeURIComponent(id)}`).then(
      (d) => {
        if (!view.main.isConnected) return;
        const shown = requestDetail(d, () => {
          detailBox.replaceChildren();
          if (opener.isConnected) opener.focus();
        });
        detailBox.replaceChildren(shown);
        shown.querySelector('h2')?.setAttribute('tabindex', '-1');
        (shown.querySelector('h2') as HTMLElement | null)?.focus();
      },
      (err) => detailBox.replaceChildren(errorBox(err)),
    );
  };
  const row = (r: any) => {
    const details: HTMLButtonElement = h(
      'button',
      { type: 'button', class: 'link', 'aria-label': `Details of request ${r.request_id}`, onclick: () => open(r.id, details) },
      'Details',
    );
    return h(
      'tr',
      { 'data-request-id': r.request_id },
      ...[
        new Date(r.at).toISOString().slice(11, 23),
        r.key_id ?? '—',
        r.model ?? '—',
        r.provider ?? '—',
        r.status >= 400 ? badge(String(r.status), 'bad') : String(r.status),
        `${r.latency_ms} ms`,
        `${r.input_tokens} / ${r.output_tokens}`,
        r.cost_usd === null ? badge('unpriced', 'bad') : money(r.cost_usd),
        details,
      ].map((c) => h('td', {}, c)),
    );
  };
  const filters = {
    model: h('input', { 'aria-label': 'Model' }),
    key: h('input', { 'aria-label': 'Key id' }),
    team: h('input', { 'aria-label': 'Team' }),
    provider: h('input', { 'aria-label': 'Provider' }),
  };
  const filterQuery = () => query({ model: filters.model.value, key: filters.key.value, team: filters.team.value, provider: filters.provider.value });
  // The list, then the tail, both filtered by the server.
  let generation = 0;
  const connect = async () => {
    const mine = ++generation;
    stopLive();
    status.textContent = 'Connecting…';
    const q = filterQuery();
    const recent = await api<Page<any>>('GET', `/v1/admin/requests${q ? `${q}&` : '?'}limit=50`);
    // Left while the list loaded, or filtered again since: this answer and its stream are not wanted.
    if (!view.main.isConnected || mine !== generation) return;
    body.replaceChildren(...recent.data.map(row));
    const source = (live = new EventSource(`/v1/admin/requests/stream${q}`));
    source.onopen = () => (status.textContent = 'Live: new requests appear at the top.');
    source.onerror = () => (status.textContent = 'Disconnected; reconnecting…');
    source.addEventListener('request', (e) => {
      body.prepend(row(JSON.parse((e as MessageEvent<string>).data)));
      while (body.children.length > 200) body.lastElementChild?.remove();
    });
  };
  view.main.append(
    h(
      'form',
      {
        class: 'inline',
        'aria-label': 'Filter requests',
        onsubmit: (e: Event) => {
          e.preventDefault();
          connect().catch((err) => (status.textContent = err instanceof Error ? err.message : String(err)));
        },
      },
      ...Object.entries(filters).map(([name, input]) => h('label', {}, name, input)),
      h('button', { type: 'submit' }, 'Filter'),
    ),
    status,
    detailBox,
    h(
      'table',
      { 'aria-label': 'Recent requests' },
      h('thead', {}, h('tr', {}, ...['Time', 'Key', 'Model', 'Provider', 'Status', 'Latency', 'Tokens in / out', 'Cost', 'Attempts'].map((t) => h('th', { scope: 'col' }, t)))),
      body,
    ),
  );
  await connect();
}

// ---- Credentials ----

export async function credentials(view: View): Promise<void> {
  heading(view, 'Credentials');
  const notices = h('div', { 'aria-live': 'polite' });
  // A connection test (POST /v1/admin/credentials/{name}/test): the result beside the button, never the key.
  const testButton = (name: string) => {
    const result = h('span', { role: 'status', 'data-test-result': name });
    const button: HTMLButtonElement = h(
      'button',
      {
        type: 'button',
        'aria-label': `Test ${name}`,
        onclick: () => {
          button.disabled = true;
          result.replaceChildren(' testing…');
          api('POST', `/v1/admin/credentials/${encodeURIComponent(name)}/test`)
            .then(
              (r) =>
                result.replaceChildren(
                  ' ',
                  r.ok ? badge('ok', 'ok') : badge('failed', 'bad'),
                  ` ${r.status ?? 'no answer'} · ${r.latency_ms} ms${r.error_type ? ` · ${r.error_type}` : ''}${r.models !== null ? ` · ${r.models} model${r.models === 1 ? '' : 's'}` : ''}`,
                ),
              (err) => result.replaceChildren(' ', errorBox(err)),
            )
            .finally(() => (button.disabled = false));
        },
      },
      'Test',
    );
    return h('span', {}, button, result);
  };
  const listBox = h('div');
  const load = async () => {
    const list = await api<Page<any>>('GET', '/v1/admin/credentials');
    listBox.replaceChildren(
      table(
        ['Name', 'Provider', 'Fields', 'Value', 'Source', 'Actions'],
        list.data.map((c) => [
          c.name,
          c.provider,
          (c.fields ?? []).join(', '),
          h('code', {}, `••••${c.last4}`),
          c.source === 'file' ? badge('config file (read-only)') : badge('api'),
          h(
            'span',
            { class: 'actions' },
            testButton(c.name),
            c.source === 'file'
              ? ''
              : h(
                  'button',
                  {
                    type: 'button',
                    disabled: !mayWrite(view, 'admin'),
                    onclick: () => void api('DELETE', `/v1/admin/credentials/${encodeURIComponent(c.name)}`).then(load, (err) => notices.replaceChildren(errorBox(err))),
                  },
                  'Delete',
                ),
          ),
        ]),
        'Credentials',
      ),
    );
  };
  const name = h('input', { required: true, autocomplete: 'off' });
  const provider = h('input', { required: true, autocomplete: 'off', value: 'openai' });
  const key = h('input', { type: 'password', required: true, autocomplete: 'off' });
  view.main.append(
    h(
      'form',
      {
        class: 'inline',
        'aria-label': 'Add a credential',
        onsubmit: (e: Event) => {
          e.preventDefault();
          api('POST', '/v1/admin/credentials', { name: name.value, provider: provider.value, api_key: key.value }).then(
            () => {
              key.value = name.value = '';
              notices.replaceChildren();
              return load();
            },
            (err) => notices.replaceChildren(errorBox(err)),
          );
        },
      },
      h('label', {}, 'Name', name),
      h('label', {}, 'Provider', provider),
      h('label', {}, 'API key', key),
      h('button', { type: 'submit', disabled: !mayWrite(view, 'admin') }, 'Add'),
    ),
    notices,
    listBox,
  );
  await load();
}

// ---- Config ----

export async function config(view: View): Promise<void> {
  heading(view, 'Config');
  const answer = await api('GET', '/v1/admin/config');
  view.main.append(
    h('p', { class: 'muted' }, 'The effective config, secrets masked. The config file is the source of truth: change it there and reload.'),
    h('h2', {}, 'Pipelines per route'),
    table(
      ['Pipeline', 'File', 'Stages', 'Routes'],
      answer.pipelines.map((p: any) => [p.name, h('code', {}, p.file), p.stages.join(' → '), p.routes.join(', ')]),
      'Pipelines',
    ),
    h('h2', {}, 'Effective config'),
    // Focusable, so a keyboard can scroll it (axe: scrollable-region-focusable).
    h('pre', { tabindex: 0, role: 'region', 'aria-label': 'Effective config (JSON)' }, JSON.stringify(answer.config, null, 2)),
    configChange(view),
  );
}

/** Validate a change (POST /v1/admin/config/validate) and reload the config file (POST /v1/admin/config/reload). */
function configChange(view: View): HTMLElement {
  const text = h('textarea', { id: 'config-text', rows: 10, cols: 80, spellcheck: 'false' });
  const result = h('div', { 'aria-live': 'polite', id: 'config-result' });
  const reloadResult = h('div', { 'aria-live': 'polite', id: 'reload-result' });
  const validate = (e: Event) => {
    e.preventDefault();
    result.replaceChildren(h('p', { class: 'muted' }, 'Checking…'));
    api('POST', '/v1/admin/config/validate', text.value, 'application/yaml')
      .then((json) => {
        result.replaceChildren(
          json.valid
            ? h('p', { role: 'status' }, badge('valid', 'ok'), ' The config is valid: write it to the config file, then reload.')
            : h(
                'div',
                { role: 'alert' },
                h('p', {}, badge(`${json.problems.length} problem${json.problems.length === 1 ? '' : 's'}`, 'bad')),
                h('ul', { 'aria-label': 'Problems' }, ...json.problems.map((p: string) => h('li', {}, h('code', {}, p)))),
              ),
        );
      })
      .catch((err) => result.replaceChildren(errorBox(err)));
  };
  return h(
    'section',
    { 'aria-label': 'Change the config' },
    h('h2', {}, 'Validate a change'),
    h('p', { class: 'muted' }, 'Paste a whole config (YAML or JSON): it is checked as start-up checks it, nothing is applied.'),
    h(
      'form',
      { 'aria-label': 'Validate a config', onsubmit: validate },
      h('label', { for: 'config-text' }, 'Config (YAML or JSON)'),
      text,
      h('button', { type: 'submit' }, 'Validate'),
    ),
    result,
    h('h2', {}, 'Reload'),
    h('p', { class: 'muted' }, 'Reads the config file again, as SIGHUP does; on any problem the running config stays.'),
    h(
      'button',
      {
        type: 'button',
        disabled: !mayWrite(view, 'admin'),
        onclick: () =>
          void api('POST', '/v1/admin/config/reload').then(
            (r) => reloadResult.replaceChildren(h('p', { role: 'status' }, badge(r.status, 'ok'), ` ${r.file}`)),
            (err) => reloadResult.replaceChildren(errorBox(err)),
          ),
      },
      'Reload the config file',
    ),
    reloadResult,
  );
}

// ---- Audit log ----

export async function audit(view: View): Promise<void> {
  heading(view, 'Audit log');
  const stack: (string | undefined)[] = [undefined];
  const box = h('div');
  view.main.append(box);
  const load = async (after: string | undefined) => {
    try {
      const page = await api<Page<any>>('GET', `/v1/admin/audit${query({ limit: 20, after })}`);
      box.replaceChildren(
        table(
          ['Time', 'Actor', 'Role', 'Action', 'Object'],
          page.data.map((a) => [time(a.created_at), a.actor?.user ?? a.actor?.id ?? '—', a.actor?.role ?? '—', a.action, `${a.resource} ${a.resource_id}`]),
          'Audit log',
        ),
        pager(page, stack, (a) => void load(a), 'Audit log'),
      );
    } catch (err) {
      box.replaceChildren(errorBox(err));
    }
  };
  await load(undefined);
}

// ---- Models and prices ----

export async function models(view: View): Promise<void> {
  heading(view, 'Models and prices');
  const stack: (string | undefined)[] = [undefined];
  const box = h('div');
  const search = h('input', { type: 'search', 'aria-label': 'Search models' });
  const onlyUnpriced = h('input', { type: 'checkbox', 'aria-label': 'Only unpriced models' });
  const load = async (after: string | undefined) => {
    try {
      const page = await api<Page<any>>('GET', `/v1/admin/models${query({ limit: 20, after, search: search.value, unpriced: onlyUnpriced.checked ? 'true' : undefined })}`);
      box.replaceChildren(
        table(
          ['Model', 'Provider', 'Context window', 'Input / token', 'Output / token', 'Price'],
          page.data.map((m) => [
            h('code', {}, m.id),
            m.owned_by,
            m.context_window ?? '—',
            m.price?.input ?? '—',
            m.price?.output ?? '—',
            m.unpriced ? badge('unpriced', 'bad') : badge(m.price?.source ?? 'priced', 'ok'),
          ]),
          'Models',
        ),
        pager(page, stack, (a) => void load(a), 'Models'),
      );
    } catch (err) {
      box.replaceChildren(errorBox(err));
    }
  };
  view.main.append(
    h('p', { class: 'muted' }, 'The catalogue comes from the config file (models:) and is read-only here.'),
    h(
      'form',
      {
        class: 'inline',
        role: 'search',
        'aria-label': 'Search models',
        onsubmit: (e: Event) => {
          e.preventDefault();
          stack.splice(1);
          void load(undefined);
        },
      },
      search,
      h('label', {}, onlyUnpriced, 'Only unpriced'),
      h('button', { type: 'submit' }, 'Search'),
    ),
    box,
  );
  await load(undefined);
}

// ---- Tool servers ----

/**
 * One server's tools, a page at a time from GET /v1/admin/mcp/servers/{name}/tools (the gateway
 * pages, searches and counts them; a server may list thousands): a search by a part of the name,
 * previous/next pages.
 */
function serverTools(s: any): HTMLElement {
  if (s.tools_error) return errorBox(s.tools_error);
  if (s.status !== 'ready' || s.tools_total === null || s.tools_total === undefined) return h('p', { class: 'muted' }, 'No tool list (the server is not ready).');
  const label = `Tools of ${s.name}`;
  const state = { search: '', stack: [undefined] as (string | undefined)[] };
  const box = h('div');
  const search = h('input', { type: 'search', 'aria-label': `Search the tools of ${s.name}`, placeholder: 'Part of a tool name' });
  const load = async (after: string | undefined) => {
    try {
      const page = await api<Page<any> & { total: number }>('GET', `/v1/admin/mcp/servers/${encodeURIComponent(s.name)}/tools${query({ limit: 20, search: state.search, after })}`);
      box.replaceChildren(
        h('p', { class: 'muted', role: 'status' }, state.search ? `${page.total} of ${s.tools_total} tools match “${state.search}”.` : `${page.total} tools.`),
        table(
          ['Tool', 'Description', 'Pinned digest', 'Waiting for approval', 'Calls', 'Errors', 'Last call'],
          page.data.map((t: any) => [
            h('code', {}, t.name),
            t.description ?? '—',
            t.pinned_digest ? h('code', { title: t.pinned_digest }, t.pinned_digest.slice(0, 16)) : '—',
            t.pending_digest ? badge('changed', 'bad') : '—',
            t.calls ? t.calls.calls : '—',
            t.calls ? t.calls.errors : '—',
            t.calls?.last_at ? time(t.calls.last_at / 1000) : '—',
          ]),
          label,
        ),
        pager(
          page,
          state.stack,
          (a) => void load(a),
          label,
          (t: any) => t.name,
        ),
      );
    } catch (err) {
      box.replaceChildren(errorBox(err));
    }
  };
  void load(undefined);
  return h(
    'div',
    {},
    h(
      'form',
      {
        class: 'inline',
        role: 'search',
        'aria-label': `Search the tools of ${s.name}`,
        onsubmit: (e: Event) => {
          e.preventDefault();
          state.search = search.value.trim();
          state.stack.splice(1);
          void load(undefined);
        },
      },
      search,
      h('button', { type: 'submit' }, 'Search'),
    ),
    box,
  );
}

export async function toolServers(view: View): Promise<void> {
  heading(view, 'Tool servers');
  const page = await api<Page<any>>('GET', '/v1/admin/mcp/servers?limit=100');
  view.main.append(h('p', { class: 'muted' }, 'Tool servers come from the config file (mcpServers:) and are read-only here.'));
  for (const s of page.data) {
    view.main.append(
      h('h2', {}, s.name, ' ', s.status === 'ready' ? badge('ready', 'ok') : badge(s.status, 'bad')),
      h(
        'p',
        { class: 'muted' },
        `${s.transport} server, pin: ${s.pin} · ${s.tools_total ?? '—'} tools · ${s.calls ?? '—'} calls with a key · ${s.sessions} sessions open through this instance`,
      ),
      h('h3', {}, `Tools of ${s.name}`),
      serverTools(s),
      h('h3', {}, `Who may use ${s.name}`),
      table(
        ['Key', 'Kind', 'User', 'Team', 'Tools', 'May call'],
        s.grants.keys.map((g: any) => [
          h('code', {}, g.id),
          g.kind === 'token' ? 'issued key' : 'config key',
          g.user ?? '—',
          g.team ?? '—',
          g.tools ? g.tools.join(', ') : 'every tool',
          g.call ? 'yes' : 'list and read only',
        ]),
        `Grants of ${s.name}`,
      ),
      h(
        'p',
        { class: 'muted' },
        `${s.grants.keys_total > s.grants.keys.length ? `${s.grants.keys.length} of ${s.grants.keys_total} shown. ` : ''}Besides these, ${s.grants.tokens_without_permissions} issued key${s.grants.tokens_without_permissions === 1 ? '' : 's'} without tool permissions of their own may use every server their scopes open.`,
      ),
    );
  }
}
