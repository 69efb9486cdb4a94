// The console API client: JSON in and out, the user token in the Authorization header (never in a URL),
// and one error type carrying the server's {code, message}.

import { getLang } from './i18n/index.js';
import { clearSession, getToken } from './session.js';

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

let onUnauthorized: () => void = () => {};

/**
 * Routes whose 401 means a wrong password or code was typed, not that the session ended: answering those by
 * signing out (every tab, session.ts) would punish a typo.
 */
const CREDENTIAL_CHECKS = /^(login|register|me\/password|me\/2fa\/)/;

/** Called when the server says the token is no longer good (expired, revoked): the app goes to log-in. */
export function setUnauthorizedHandler(fn: () => void): void {
  onUnauthorized = fn;
}

function authHeaders(): Record<string, string> {
  const token = getToken();
  return token ? { Authorization: `Bearer ${token}` } : {};
}

async function failureOf(res: Response): Promise<ApiFailure> {
  let code = `HTTP_${res.status}`;
  let message = res.statusText;
  try {
    const body = (await res.json()) as { error?: { code?: string; message?: string } };
    code = body.error?.code ?? code;
    message = body.error?.message ?? message;
  } catch {
    // not JSON (a proxy's error page): keep the status line
  }
  return new ApiFailure(res.status, code, message);
}

export async function api<T>(method: Method, path: string, body?: unknown): Promise<T> {
  // The server writes its error messages in the language asked for: the console's, not the browser's.
  const headers: Record<string, string> = {
    Accept: 'application/json',
    'Accept-Language': getLang(),
    ...authHeaders(),
  };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(`/console/api/${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
    });
  } catch (err) {
    throw new ApiFailure(0, 'NETWORK', err instanceof Error ? err.message : String(err));
  }
  if (!res.ok) {
    const failure = await failureOf(res);
    if (res.status === 401 && getToken() && !CREDENTIAL_CHECKS.test(path)) {
      clearSession();
      onUnauthorized();
    }
    throw failure;
  }
  return (await res.json()) as T;
}

export const get = <T>(path: string): Promise<T> => api<T>('GET', path);
export const post = <T>(path: string, body?: unknown): Promise<T> => api<T>('POST', path, body ?? {});

/** Every CSV comes with its times in this browser's zone and its header in the console's language. */
function csvLocale(): string {
  const q = new URLSearchParams({ lang: getLang() });
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (zone) q.set('tz', zone);
  return q.toString();
}

/**
 * Downloads a file that needs the Authorization header (CSV exports): fetched here and saved through a Blob
 * URL, because putting the token in a link's URL would leak it into history and logs.
 */
export async function download(path: string, filename: string): Promise<void> {
  const res = await fetch(`/console/api/${path}${path.includes('?') ? '&' : '?'}${csvLocale()}`, {
    headers: authHeaders(),
    credentials: 'same-origin',
  });
  if (!res.ok) throw await failureOf(res);
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
