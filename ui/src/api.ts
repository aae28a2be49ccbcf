// The admin API client: same-origin fetches carrying the HttpOnly session cookie, and on every
// write the CSRF token (double submit: the readable gw_csrf cookie, sent back in x-csrf-token).

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface Session {
  role: 'admin' | 'viewer' | 'team_admin';
  team: string | null;
  user: string | null;
  expires_at: number;
  csrf_token: string;
  read_only: boolean;
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
}

function csrfToken(): string {
  for (const part of document.cookie.split(';')) {
    const [name, value] = part.trim().split('=');
    if (name === 'gw_csrf') return value ?? '';
  }
  return '';
}

/** A call of the admin API: `body` sent as JSON, or as it is with `contentType` (a config text). */
export async function api<T = any>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken();
  if (body !== undefined) headers['content-type'] = contentType ?? 'application/json';
  const payload = body === undefined ? undefined : contentType ? String(body) : JSON.stringify(body);
  const res = await fetch(path, { method, headers, credentials: 'same-origin', body: payload });
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok) throw new ApiError(res.status, json?.error?.message ?? `${res.status} ${res.statusText}`);
  return json as T;
}

export function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

export const login = (token: string) => api<Session>('POST', '/v1/admin/session', { token });
export const currentSession = () => api<Session>('GET', '/v1/admin/session');
export const logout = () => api<void>('DELETE', '/v1/admin/session');
