// Small DOM helpers: elements are built with textContent only (never innerHTML), so no value from
// the API is ever parsed as markup.

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined | ((e: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.slice(2).toLowerCase(), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) el.append(typeof child === 'number' ? String(child) : child);
  return el;
}

const SVG = 'http://www.w3.org/2000/svg';
export function svg(tag: string, attrs: Record<string, string | number> = {}, ...children: (Node | string)[]): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  el.append(...children);
  return el;
}

export function table(headers: string[], rows: Child[][], label: string): HTMLTableElement {
  return h(
    'table',
    { 'aria-label': label },
    h('thead', {}, h('tr', {}, ...headers.map((t) => h('th', { scope: 'col' }, t)))),
    h(
      'tbody',
      {},
      ...(rows.length ? rows.map((r) => h('tr', {}, ...r.map((c) => h('td', {}, c)))) : [h('tr', {}, h('td', { colspan: headers.length, class: 'muted' }, 'Nothing to show.'))]),
    ),
  );
}

export function time(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—';
  return new Date(seconds * 1000).toISOString().replace('T', ' ').slice(0, 19);
}

export function errorBox(err: unknown): HTMLElement {
  return h('p', { class: 'error', role: 'alert' }, err instanceof Error ? err.message : String(err));
}

export function badge(text: string, kind: 'ok' | 'bad' | '' = ''): HTMLElement {
  return h('span', { class: `badge ${kind}` }, text);
}
