// Health of configured upstreams (operations.yaml `upstreams:`), shared by every gateway process through the
// state layer (memory, or Redis like the rate limits): consecutive failures open a circuit for a cool-down, after
// which one call is let through as a trial; a success closes it. A bad credential or a used-up quota takes an
// upstream out for the time its rule says (`disable`, which tells whether this was the change into disabled, so the
// operator is alerted once across processes); canaries take one out with `markDown`. The last error of each is kept
// for the admin page. The state never fails a call: while Redis is unreachable every upstream counts as healthy.
import type { MaybePromise } from '../kernel/maybe-promise.js';
import type { SharedState } from './shared-state.js';

/** Why an upstream is out: its circuit opened, an error rule disabled it, or its canary status is down. */
export type DownKind = 'circuit' | 'disabled' | 'canary';

export interface DownState {
  /** Epoch ms the upstream is out until. */
  until: number;
  reason: string;
  kind: DownKind;
}

/** The last failure an upstream gave a customer's call: its code and when (epoch ms). */
export interface LastError {
  code: string;
  at: number;
}

export interface UpstreamHealth {
  /**
   * Can `id` be tried now? A circuit whose cool-down is over admits one trial call across the processes. Without a
   * promise while this process knows the upstream is clean (see CLEAN_MS).
   */
  admit(op: string, id: string): MaybePromise<boolean>;
  /** A call it served, or answered for the caller (NOT_FOUND and the like): the circuit closes. */
  succeeded(op: string, id: string): MaybePromise<void>;
  /** A failure that may be the upstream's: `threshold` in a row open the circuit for `coolDownS`. */
  failed(op: string, id: string, threshold: number, coolDownS: number, reason: string): Promise<boolean>;
  /**
   * Out of rotation for `seconds` by an error rule (credential or quota). True only for the call that disabled
   * it: repeats while disabled, from any process or a canary's probe, are false, so the alert goes out once.
   */
  disable(op: string, id: string, seconds: number, reason: string): Promise<boolean>;
  /** Out of rotation for `seconds`: a canary that failed. */
  markDown(op: string, id: string, seconds: number, reason: string): Promise<void>;
  /** Back in rotation at once (a canary passed, or the operator fixed the credential). */
  markUp(op: string, id: string): Promise<void>;
  /** The current state, for the admin page and the tests; null when it is in rotation. */
  down(op: string, id: string): Promise<DownState | null>;
  /** Keep the code of a failure, for the admin page. */
  noteError(op: string, id: string, code: string): Promise<void>;
  lastError(op: string, id: string): Promise<LastError | null>;
}

/**
 * The canary status key (the second key of operation_status, beside platforms) of one configured upstream:
 * `upstream:<id>`, or `<platform>|upstream:<id>` for a sample with a platform. Platforms are plain names, so the
 * two never collide.
 */
export const upstreamSubject = (platform: string, id: string): string =>
  platform ? `${platform}|upstream:${id}` : `upstream:${id}`;
/** The upstream id a status key names, or null for an operation's or platform's own status. */
export function upstreamOfSubject(subject: string): string | null {
  const i = subject.indexOf('upstream:');
  return i < 0 ? null : subject.slice(i + 'upstream:'.length);
}

const KEY = (op: string, id: string): string => `upstream:${op}:${id}`;
/** Long enough to outlive any cool-down; the counters only need to live while failures keep coming. */
const FAIL_TTL_S = 3600;
/** How long the admin page shows an upstream's last error. */
const LAST_ERROR_TTL_S = 7 * 86_400;
/**
 * How long a process takes an upstream it found clean (no down mark, no failures counted) to stay clean without
 * asking the shared state again. Asking cost every successful call three reads (the down mark to admit it, the mark
 * and the failure count to close the circuit after it), three Redis round trips when the state is Redis, because a
 * key that does not exist is not kept by the state's front cache. Any failure, disable, canary mark or mark-up seen
 * by this process forgets it at once; what another process writes (its circuit opening, its canary's mark) is seen
 * here within this time, and the calls sent meanwhile are what calls already in flight when it opened are: they fail,
 * count, and move on to the next upstream. One side effect, by the same bound: a success clears another process's
 * failure count at most once per CLEAN_MS from each process.
 */
export const CLEAN_MS = 1000;

export function createUpstreamHealth(state: SharedState, now: () => number = Date.now): UpstreamHealth {
  /** Upstreams this process found clean, until when (CLEAN_MS). */
  const cleanUntil = new Map<string, number>();
  /** Per upstream, how often it was forgotten: a success whose reads overlapped a failure does not mark it clean. */
  const forgets = new Map<string, number>();
  const isClean = (key: string): boolean => {
    const until = cleanUntil.get(key);
    return until !== undefined && now() < until;
  };
  const forget = (op: string, id: string): void => {
    const key = KEY(op, id);
    cleanUntil.delete(key);
    forgets.set(key, (forgets.get(key) ?? 0) + 1);
  };
  const readDown = async (op: string, id: string): Promise<DownState | null> => {
    try {
      const raw = await state.cacheGet(`${KEY(op, id)}:down`);
      if (!raw) return null;
      const d = JSON.parse(raw) as DownState;
      return typeof d.until === 'number' ? { ...d, kind: d.kind ?? 'circuit' } : null;
    } catch {
      return null;
    }
  };
  const writeDown = async (op: string, id: string, seconds: number, reason: string, kind: DownKind): Promise<void> => {
    const until = now() + seconds * 1000;
    try {
      // Kept past `until` so the trial after the cool-down can be claimed once; cleared by a success.
      await state.cacheSet(`${KEY(op, id)}:down`, JSON.stringify({ until, reason, kind }), seconds + FAIL_TTL_S);
    } catch {
      // unreachable state: the upstream stays in rotation
    }
  };
  const clear = async (op: string, id: string): Promise<void> => {
    try {
      await state.cacheSet(`${KEY(op, id)}:down`, '', 1);
      await clearFails(op, id);
    } catch {
      // nothing to clear while the state is unreachable
    }
  };
  const clearFails = async (op: string, id: string): Promise<void> => {
    const fails = await state.get(`${KEY(op, id)}:fails`);
    if (fails) await state.incr(`${KEY(op, id)}:fails`, -fails, FAIL_TTL_S);
  };
  /**
   * A success closes the circuit: only what is set is cleared, so the usual success, with nothing to clear, reads
   * and never writes (a write into the shared cache with every call of every configured upstream).
   */
  const closeCircuit = async (op: string, id: string): Promise<void> => {
    const key = KEY(op, id);
    const forgotten = forgets.get(key);
    try {
      if (await state.cacheGet(`${key}:down`)) await state.cacheSet(`${key}:down`, '', 1);
      await clearFails(op, id);
      if (forgets.get(key) === forgotten) cleanUntil.set(key, now() + CLEAN_MS);
    } catch {
      // nothing to clear while the state is unreachable
    }
  };
  /** This process's memory of the disables it announced, for while the shared state is unreachable. */
  const announcedHere = new Map<string, number>();
  const firstDisable = async (op: string, id: string, seconds: number): Promise<boolean> => {
    try {
      // Set-if-absent that expires with the disable: the first process to count 1 announces it.
      return (await state.incr(`${KEY(op, id)}:disabled`, 1, seconds)) === 1;
    } catch {
      const until = announcedHere.get(KEY(op, id)) ?? 0;
      if (now() < until) return false;
      announcedHere.set(KEY(op, id), now() + seconds * 1000);
      return true;
    }
  };
  const admitRead = async (op: string, id: string): Promise<boolean> => {
    const d = await readDown(op, id);
    if (!d) return true;
    if (now() < d.until) return false;
    try {
      // One trial per cool-down across the processes: the first to count 1 goes.
      return (await state.incr(`${KEY(op, id)}:trial:${d.until}`, 1, FAIL_TTL_S)) === 1;
    } catch {
      return true;
    }
  };
  return {
    admit(op, id) {
      return isClean(KEY(op, id)) || admitRead(op, id);
    },
    succeeded(op, id) {
      if (!isClean(KEY(op, id))) return closeCircuit(op, id);
    },
    async failed(op, id, threshold, coolDownS, reason) {
      forget(op, id);
      let n: number;
      try {
        n = await state.incr(`${KEY(op, id)}:fails`, 1, FAIL_TTL_S);
      } catch {
        return false;
      }
      if (n < threshold) return false;
      await writeDown(op, id, coolDownS, reason, 'circuit');
      return true;
    },
    async disable(op, id, seconds, reason) {
      forget(op, id);
      // A repeat while disabled (a canary's probe) neither extends it nor is news: the mark and the announcement
      // run out together.
      if (!(await firstDisable(op, id, seconds))) return false;
      await writeDown(op, id, seconds, reason, 'disabled');
      return true;
    },
    markDown(op, id, seconds, reason) {
      forget(op, id);
      return writeDown(op, id, seconds, reason, 'canary');
    },
    async markUp(op, id) {
      forget(op, id);
      await clear(op, id);
      announcedHere.delete(KEY(op, id));
      try {
        // Back in rotation before the disable ran out: the next disable is news again.
        const n = await state.get(`${KEY(op, id)}:disabled`);
        if (n) await state.incr(`${KEY(op, id)}:disabled`, -n, 1);
      } catch {
        // nothing to clear while the state is unreachable
      }
    },
    async down(op, id) {
      const d = await readDown(op, id);
      return d && now() < d.until ? d : null;
    },
    async noteError(op, id, code) {
      try {
        await state.cacheSet(`${KEY(op, id)}:last`, JSON.stringify({ code, at: now() }), LAST_ERROR_TTL_S);
      } catch {
        // only the admin page misses it
      }
    },
    async lastError(op, id) {
      try {
        const raw = await state.cacheGet(`${KEY(op, id)}:last`);
        return raw ? (JSON.parse(raw) as LastError) : null;
      } catch {
        return null;
      }
    },
  };
}

const byState = new WeakMap<SharedState, UpstreamHealth>();
/** One per state (process), made on first use: operations without upstreams never touch it. */
export function upstreamHealthOf(state: SharedState): UpstreamHealth {
  let h = byState.get(state);
  if (!h) byState.set(state, (h = createUpstreamHealth(state)));
  return h;
}
