// Who is logged in. The user token lives in sessionStorage (per tab, gone when the tab closes) and travels
// only in the Authorization header, never in a URL. API key secrets made in this tab are kept in memory
// only: the server cannot show them again, and they must not outlive the page.
export interface SessionUser {
  id: number;
  email: string;
  role: 'user' | 'admin';
  status: string;
  created_at: string | null;
}

const TOKEN_KEY = 'tollgate.token';
const USER_KEY = 'tollgate.user';

const secrets = new Map<number, { name: string; prefix: string; secret: string }>();

function storage(): Storage | undefined {
  try {
    return window.sessionStorage;
  } catch {
    return undefined; // storage disabled: the session then lasts as long as the page
  }
}

let memoryToken: string | null = null;
let memoryUser: SessionUser | null = null;

export function getToken(): string | null {
  return storage()?.getItem(TOKEN_KEY) ?? memoryToken;
}

export function getUser(): SessionUser | null {
  if (memoryUser) return memoryUser;
  const raw = storage()?.getItem(USER_KEY);
  if (!raw) return null;
  try {
    memoryUser = JSON.parse(raw) as SessionUser;
  } catch {
    memoryUser = null;
  }
  return memoryUser;
}

export function setSession(token: string, user: SessionUser): void {
  memoryToken = token;
  memoryUser = user;
  storage()?.setItem(TOKEN_KEY, token);
  storage()?.setItem(USER_KEY, JSON.stringify(user));
}

export function updateUser(user: SessionUser): void {
  memoryUser = user;
  storage()?.setItem(USER_KEY, JSON.stringify(user));
}

export function clearSession(): void {
  memoryToken = null;
  memoryUser = null;
  secrets.clear();
  storage()?.removeItem(TOKEN_KEY);
  storage()?.removeItem(USER_KEY);
}

export function isAdmin(): boolean {
  return getUser()?.role === 'admin';
}

export function rememberSecret(id: number, name: string, prefix: string, secret: string): void {
  secrets.set(id, { name, prefix, secret });
}

export function forgetSecret(id: number): void {
  secrets.delete(id);
}

export function sessionSecrets(): Array<{ id: number; name: string; prefix: string; secret: string }> {
  return [...secrets.entries()].map(([id, s]) => ({ id, ...s })).reverse();
}
