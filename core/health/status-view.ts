// What the status page, its JSON form and the front page's dot show: per operation with canaries its state (the
// worst of its platforms, or degraded when only some are down: one platform's outage is not the operation's),
// since when, the last success and the last failure's class and field, its platforms, and bars over 24 h, 7 d and
// 30 d from the stored results. The failure detail stays in the admin history: it may name upstream internals.
// A provider of the plugin's own (`canary.providers`) that fails makes the operation degraded, never down: the
// plugin's failover still serves customers from the others (the failover probe says whether it does).
import { probedProviders, providerSubject } from '../config/canary-config.js';
import type { OperationsConfig } from '../config/operations-config.js';
import type { HealthState } from '../store/schema-health.js';
import type { BucketRow, SubjectRow } from './status-store.js';

export type BarState = 'ok' | 'degraded' | 'down' | 'none';

export interface Bar {
  /** Start of the bucket, ISO-8601 UTC. */
  start: string;
  ok: number;
  total: number;
  state: BarState;
}

export interface SubjectView {
  state: HealthState;
  since: string | null;
  last_success_at: string | null;
  last_failure_at: string | null;
  last_class: string | null;
  last_field: string | null;
}

export interface PlatformView extends SubjectView {
  platform: string;
}

export interface OperationView extends SubjectView {
  code: string;
  name: { zh: string; en: string };
  platforms: PlatformView[];
  bars: Record<WindowName, Bar[]>;
}

export interface StatusReport {
  state: HealthState;
  updated_at: string;
  operations: OperationView[];
}

export type WindowName = '24h' | '7d' | '30d';
/** Results are read per hour (readBuckets); every window's bucket is a whole number of hours. */
export const HOUR_MS = 3_600_000;
export const WINDOWS: Record<WindowName, { bucketMs: number; count: number }> = {
  '24h': { bucketMs: 3_600_000, count: 24 },
  '7d': { bucketMs: 6 * 3_600_000, count: 28 },
  '30d': { bucketMs: 86_400_000, count: 30 },
};

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

function subjectView(r: SubjectRow | undefined): SubjectView {
  if (!r) {
    return {
      state: 'unknown',
      since: null,
      last_success_at: null,
      last_failure_at: null,
      last_class: null,
      last_field: null,
    };
  }
  return {
    state: r.state,
    since: iso(r.since),
    last_success_at: iso(r.lastSuccessAt),
    last_failure_at: iso(r.lastFailureAt),
    last_class: r.lastFailureAt === null ? null : r.lastClass,
    last_field: r.lastFailureAt === null ? null : r.lastField,
  };
}

/** The operation's state from its platforms': all down is down, any trouble is degraded, all ok (or not yet known) ok. */
export function combine(states: HealthState[]): HealthState {
  const known = states.filter((s) => s !== 'unknown');
  if (known.length === 0) return 'unknown';
  if (known.every((s) => s === 'down') && known.length === states.length) return 'down';
  if (known.some((s) => s !== 'ok')) return 'degraded';
  return 'ok';
}

/** The operation's view with its providers' statuses folded in: one in trouble makes an ok operation degraded. */
function withProviders(view: SubjectView, providers: SubjectRow[]): SubjectView {
  const troubled = providers.filter((r) => r.state === 'degraded' || r.state === 'down');
  if (troubled.length === 0 || view.state === 'down') return view;
  const latest = troubled.reduce((a, r) => ((r.lastFailureAt ?? 0) > (a.lastFailureAt ?? 0) ? r : a));
  const newer = latest.lastFailureAt !== null && iso(latest.lastFailureAt)! > (view.last_failure_at ?? '');
  return {
    ...view,
    state: 'degraded',
    ...(newer
      ? { last_failure_at: iso(latest.lastFailureAt), last_class: latest.lastClass, last_field: latest.lastField }
      : {}),
  };
}

function barsOf(rows: BucketRow[], code: string, now: number): Record<WindowName, Bar[]> {
  const out = {} as Record<WindowName, Bar[]>;
  for (const [name, w] of Object.entries(WINDOWS) as Array<[WindowName, (typeof WINDOWS)[WindowName]]>) {
    const last = Math.floor(now / w.bucketMs);
    const sums = new Map<number, { ok: number; total: number }>();
    for (const r of rows) {
      if (r.operation !== code) continue;
      const b = Math.floor((r.bucket * HOUR_MS) / w.bucketMs);
      const cell = sums.get(b) ?? { ok: 0, total: 0 };
      cell.ok += r.ok;
      cell.total += r.total;
      sums.set(b, cell);
    }
    out[name] = Array.from({ length: w.count }, (_, i) => {
      const b = last - w.count + 1 + i;
      const { ok, total } = sums.get(b) ?? { ok: 0, total: 0 };
      const state: BarState = total === 0 ? 'none' : ok === total ? 'ok' : ok === 0 ? 'down' : 'degraded';
      return { start: new Date(b * w.bucketMs).toISOString(), ok, total, state };
    });
  }
  return out;
}

/**
 * The report over the operations of `config` that declare canaries. `hourRows` are results per subject and hour
 * (readBuckets with HOUR_MS) over the longest window; each window sums them into its own buckets.
 */
export function buildReport(
  config: OperationsConfig,
  subjects: SubjectRow[],
  hourRows: BucketRow[],
  now: number,
): StatusReport {
  const operations: OperationView[] = [];
  for (const op of config.operations) {
    if (!op.enabled || !op.canary || !op.availability.available) continue;
    const mine = subjects.filter((r) => r.operation === op.code);
    const platforms = op.canary.samples
      .filter((s) => s.platform !== '')
      .map((s) => ({ platform: s.platform, ...subjectView(mine.find((r) => r.platform === s.platform)) }));
    let view: SubjectView;
    if (platforms.length === 0) view = subjectView(mine.find((r) => r.platform === ''));
    else {
      const rows = mine.filter((r) => platforms.some((p) => p.platform === r.platform));
      const lastFailure = rows.reduce<SubjectRow | null>(
        (a, r) => (r.lastFailureAt !== null && (a === null || r.lastFailureAt > (a.lastFailureAt ?? 0)) ? r : a),
        null,
      );
      const max = (xs: Array<number | null>): number | null =>
        xs.reduce<number | null>((a, x) => (x !== null && (a === null || x > a) ? x : a), null);
      view = {
        state: combine(platforms.map((p) => p.state)),
        since: iso(max(rows.map((r) => r.since))),
        last_success_at: iso(max(rows.map((r) => r.lastSuccessAt))),
        last_failure_at: iso(lastFailure?.lastFailureAt ?? null),
        last_class: lastFailure?.lastClass ?? null,
        last_field: lastFailure?.lastField ?? null,
      };
    }
    const providerKeys = probedProviders(op).flatMap((id) =>
      op.canary!.samples.map((x) => providerSubject(x.platform, id)),
    );
    view = withProviders(
      view,
      mine.filter((r) => providerKeys.includes(r.platform)),
    );
    operations.push({
      code: op.code,
      name: { zh: op.text.zh.name, en: op.text.en.name },
      ...view,
      platforms,
      bars: barsOf(hourRows, op.code, now),
    });
  }
  const states = operations.map((o) => o.state);
  const overall: HealthState = states.includes('down')
    ? 'down'
    : states.includes('degraded')
      ? 'degraded'
      : states.includes('ok')
        ? 'ok'
        : 'unknown';
  return { state: overall, updated_at: new Date(now).toISOString(), operations };
}
