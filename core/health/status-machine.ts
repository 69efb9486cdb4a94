// The state of one subject (an operation, or one platform of it) as observations arrive: a failure makes an ok
// subject degraded and `failures_to_down` failures in a row make it down; `successes_to_recover` successes in a row
// make it ok again. Only these changes are alerted (the thresholds are the debounce). The next probe is due one
// interval after a success; a first failure is confirmed sooner, and while a subject stays down the wait doubles
// per failure up to MAX_BACKOFF_MS, so a dead upstream is not hammered.
import type { CanaryConfig } from '../config/canary-config.js';
import type { HealthState } from '../store/schema-health.js';

export interface SubjectState {
  state: HealthState;
  since: number;
  lastSuccessAt: number | null;
  lastFailureAt: number | null;
  lastClass: string | null;
  lastField: string | null;
  lastDetail: string | null;
  failures: number;
  successes: number;
  nextProbeAt: number;
}

export interface Observation {
  ok: boolean;
  class: string | null;
  field: string | null;
  detail: string;
  at: number;
}

export interface Change {
  from: HealthState;
  to: HealthState;
}

export const CONFIRM_MS = 5 * 60_000;
export const MAX_BACKOFF_MS = 6 * 3_600_000;

export function initialState(now: number): SubjectState {
  return {
    state: 'unknown',
    since: now,
    lastSuccessAt: null,
    lastFailureAt: null,
    lastClass: null,
    lastField: null,
    lastDetail: null,
    failures: 0,
    successes: 0,
    nextProbeAt: now,
  };
}

/** The wait before the next probe after `failures` failures in a row (0: after a success). */
export function nextDelay(cfg: Pick<CanaryConfig, 'intervalMs' | 'failuresToDown'>, failures: number): number {
  if (failures === 0) return cfg.intervalMs;
  if (failures < cfg.failuresToDown) return Math.min(cfg.intervalMs, CONFIRM_MS);
  return Math.min(cfg.intervalMs * 2 ** (failures - cfg.failuresToDown), Math.max(MAX_BACKOFF_MS, cfg.intervalMs));
}

export function observe(
  prev: SubjectState,
  o: Observation,
  cfg: Pick<CanaryConfig, 'intervalMs' | 'failuresToDown' | 'successesToRecover'>,
): { next: SubjectState; change: Change | null } {
  const next: SubjectState = { ...prev };
  let to: HealthState = prev.state;
  if (o.ok) {
    next.successes = prev.successes + 1;
    next.failures = 0;
    next.lastSuccessAt = Math.max(prev.lastSuccessAt ?? 0, o.at);
    if (prev.state === 'unknown' || next.successes >= cfg.successesToRecover) to = 'ok';
  } else {
    next.failures = prev.failures + 1;
    next.successes = 0;
    next.lastFailureAt = o.at;
    next.lastClass = o.class;
    next.lastField = o.field;
    next.lastDetail = o.detail;
    if (next.failures >= cfg.failuresToDown) to = 'down';
    else if (prev.state === 'ok' || prev.state === 'unknown') to = 'degraded';
  }
  next.nextProbeAt = o.at + nextDelay(cfg, next.failures);
  if (to === prev.state) return { next, change: null };
  next.state = to;
  next.since = o.at;
  return { next, change: { from: prev.state, to } };
}

/** The alert a change makes: none when a first result is ok (nothing was known before). */
export function eventOf(change: Change): 'operation.degraded' | 'operation.down' | 'operation.recovered' | null {
  if (change.to === 'down') return 'operation.down';
  if (change.to === 'degraded') return 'operation.degraded';
  if (change.to === 'ok' && change.from !== 'unknown') return 'operation.recovered';
  return null;
}
