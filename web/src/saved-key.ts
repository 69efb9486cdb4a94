// The API key the debugger used last, remembered in this browser (localStorage) so it is not picked again on
// every page or tab. It is a secret: kept for the user who chose it only, and forgotten at every sign-out of this
// browser (session.ts), expiry included.
export const SAVED_KEY = 'tollgate.debuggerKey';

export interface SavedKey {
  user: number;
  /** What the picker shows: the key's prefix, never the secret. */
  label: string;
  secret: string;
}

function local(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

export function savedKey(userId: number): SavedKey | null {
  try {
    const k = JSON.parse(local()?.getItem(SAVED_KEY) ?? 'null') as SavedKey | null;
    return k && k.user === userId && typeof k.secret === 'string' && typeof k.label === 'string' ? k : null;
  } catch {
    return null;
  }
}

export function saveKey(userId: number, secret: string): void {
  const label = `${secret.slice(0, 7)}…${secret.slice(-4)}`;
  local()?.setItem(SAVED_KEY, JSON.stringify({ user: userId, label, secret } satisfies SavedKey));
}

export function forgetSavedKey(): void {
  local()?.removeItem(SAVED_KEY);
}
