// Who is logged in. The user token travels only in the Authorization header, never in a URL or a cookie: a
// bearer header cannot be sent by another site (no CSRF surface) and the console's CSP allows no script but our
// own, which is what keeps a token in web storage safe. "Remember me" keeps it in localStorage (every tab, across
// restarts, until it expires); otherwise sessionStorage, handed to new tabs of this browser session over a
// BroadcastChannel. Signing in or out in one tab reaches every other tab (storage event + channel).
// API key secrets made in this tab stay in memory: the server cannot show them again; the debugger's chosen key
// is remembered per browser (saved-key.ts) and forgotten here at every sign-out.
import { forgetSavedKey } from './saved-key.js';

export interface SessionUser {
  id: number;
  email: string;
  role: 'user' | 'admin';
  status: string;
  created_at: string | null;
}

const TOKEN_KEY = 'tollgate.token';
const USER_KEY = 'tollgate.user';
const EXPIRES_KEY = 'tollgate.expires';
const CHANNEL = 'tollgate.session';
/** setTimeout takes at most 2^31-1 ms (24.8 days); a 30-day session re-arms its timer. */
const MAX_TIMER_MS = 2_147_483_647;

type Kind = 'local' | 'session';
type Message =
  | { type: 'ask' }
  | { type: 'share'; token: string; user: string; expires: string | null }
  | { type: 'signout'; token: string | null };

const secrets = new Map<number, { name: string; prefix: string; secret: string }>();
const listeners: Array<() => void> = [];

function storage(kind: Kind): Storage | undefined {
  try {
    return kind === 'local' ? window.localStorage : window.sessionStorage;
  } catch {
    return undefined; // storage disabled: the session then lasts as long as the page
  }
}

let memory: { token: string; user: SessionUser; expires: number | null } | null = null;
let timer: ReturnType<typeof setTimeout> | undefined;
const channel: BroadcastChannel | null = typeof BroadcastChannel === 'function' ? new BroadcastChannel(CHANNEL) : null;

/** Where the current token lives: this tab's sessionStorage first (a tab can be signed in for itself only). */
function stored(): { kind: Kind; token: string; user: string; expires: string | null } | null {
  for (const kind of ['session', 'local'] as const) {
    const s = storage(kind);
    const token = s?.getItem(TOKEN_KEY);
    const user = s?.getItem(USER_KEY);
    if (token && user) return { kind, token, user, expires: s?.getItem(EXPIRES_KEY) ?? null };
  }
  return null;
}

function load(): void {
  if (memory) return;
  const s = stored();
  if (!s) return;
  try {
    memory = {
      token: s.token,
      user: JSON.parse(s.user) as SessionUser,
      expires: s.expires ? Date.parse(s.expires) : null,
    };
  } catch {
    memory = null;
  }
  armTimer();
}

function expired(): boolean {
  return memory?.expires != null && memory.expires <= Date.now();
}

/** Ends the session here when its token expires, so the page goes to log-in before a request fails. */
function armTimer(): void {
  if (timer) clearTimeout(timer);
  timer = undefined;
  if (memory?.expires == null) return;
  timer = setTimeout(
    () => {
      if (expired()) {
        drop();
        changed();
      } else armTimer();
    },
    Math.min(Math.max(memory.expires - Date.now(), 0), MAX_TIMER_MS),
  );
}

function changed(): void {
  for (const fn of listeners) fn();
}

/** Forgets the session in this tab's memory and both storages, without telling the other tabs. */
function drop(): void {
  const token = memory?.token ?? null;
  memory = null;
  secrets.clear();
  if (timer) clearTimeout(timer);
  timer = undefined;
  // Only the storage that holds this tab's token: a tab signed in for itself (sessionStorage) leaves another
  // account remembered in localStorage alone. The token goes first, so a tab that reacts to its storage event
  // never sees a user without a token.
  for (const kind of ['session', 'local'] as const) {
    const s = storage(kind);
    if (token !== null && s?.getItem(TOKEN_KEY) !== token) continue;
    for (const k of [TOKEN_KEY, USER_KEY, EXPIRES_KEY]) s?.removeItem(k);
  }
  forgetSavedKey();
}

export function getToken(): string | null {
  load();
  if (expired()) drop();
  return memory?.token ?? null;
}

export function getUser(): SessionUser | null {
  load();
  return memory?.user ?? null;
}

/** Called whenever this tab's session starts or ends because of another tab, an expiry or a sign-out. */
export function onSessionChange(fn: () => void): void {
  listeners.push(fn);
}

export function setSession(
  token: string,
  user: SessionUser,
  opts: { remember?: boolean; expiresAt?: string | null } = {},
): void {
  const kind: Kind = opts.remember ? 'local' : 'session';
  secrets.clear();
  for (const k of [TOKEN_KEY, USER_KEY, EXPIRES_KEY]) storage(kind === 'local' ? 'session' : 'local')?.removeItem(k);
  write(kind, token, JSON.stringify(user), opts.expiresAt ?? null);
  memory = { token, user, expires: opts.expiresAt ? Date.parse(opts.expiresAt) : null };
  armTimer();
  const expires = opts.expiresAt ?? null;
  // Tabs of a browser session that are still on the log-in page sign in too.
  if (!opts.remember)
    channel?.postMessage({ type: 'share', token, user: JSON.stringify(user), expires } satisfies Message);
}

export function updateUser(user: SessionUser): void {
  load();
  if (!memory) return;
  memory.user = user;
  const where = stored();
  if (where) storage(where.kind)?.setItem(USER_KEY, JSON.stringify(user));
}

/** Signs out here and in every other tab of this browser. */
export function clearSession(): void {
  load();
  const token = memory?.token ?? null;
  drop();
  channel?.postMessage({ type: 'signout', token } satisfies Message);
}

export function isAdmin(): boolean {
  return getUser()?.role === 'admin';
}

/**
 * A new tab without a token asks the open tabs for their browser-session token and waits up to `waitMs` for an
 * answer; resolves at once when a token is already here (or nothing can answer).
 */
export function adoptOtherTabSession(waitMs = 150): Promise<void> {
  if (getToken() || !channel) return Promise.resolve();
  return new Promise((resolve) => {
    const done = setTimeout(resolve, waitMs);
    const onShare = (ev: MessageEvent<Message>): void => {
      if (ev.data?.type !== 'share' || getToken()) return;
      clearTimeout(done);
      channel.removeEventListener('message', onShare);
      resolve();
    };
    channel.addEventListener('message', onShare);
    channel.postMessage({ type: 'ask' } satisfies Message);
  });
}

channel?.addEventListener('message', (ev: MessageEvent<Message>) => {
  const msg = ev.data;
  if (msg?.type === 'ask') {
    const s = stored();
    // Only browser-session tokens are handed over: remembered ones are in localStorage for every tab already.
    if (s?.kind === 'session' && getToken())
      channel.postMessage({ type: 'share', token: s.token, user: s.user, expires: s.expires } satisfies Message);
  } else if (msg?.type === 'share' && !getToken()) {
    try {
      setSessionQuietly(msg.token, JSON.parse(msg.user) as SessionUser, msg.expires);
      changed();
    } catch {
      // a malformed message from an older console: ignore it
    }
  } else if (msg?.type === 'signout' && memory && (msg.token === null || msg.token === memory.token)) {
    // Another tab signed this very token out (a tab signed in as someone else stays).
    drop();
    changed();
  }
});

function setSessionQuietly(token: string, user: SessionUser, expires: string | null): void {
  memory = { token, user, expires: expires ? Date.parse(expires) : null };
  write('session', token, JSON.stringify(user), expires);
  armTimer();
}

/** The token is written last: other tabs react to its storage event and must find the user already there. */
function write(kind: Kind, token: string, user: string, expires: string | null): void {
  const s = storage(kind);
  s?.setItem(USER_KEY, user);
  if (expires) s?.setItem(EXPIRES_KEY, expires);
  else s?.removeItem(EXPIRES_KEY);
  s?.setItem(TOKEN_KEY, token);
}

// A remembered sign-in or sign-out in another tab changes localStorage, which fires here.
if (typeof window !== 'undefined') {
  window.addEventListener('storage', (ev) => {
    if (ev.storageArea !== storage('local') || (ev.key !== TOKEN_KEY && ev.key !== null)) return;
    const before = memory?.token ?? null;
    memory = null;
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (getToken() !== before) changed();
  });
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
