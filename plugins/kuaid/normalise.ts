// The shapes kuaid answers with, and how a provider's result becomes one.
import type { Courier } from './couriers.js';
import type { RankedCourier } from './detect.js';
import type { ProviderId, Trace, Track } from './providers/types.js';
import { isFinished, STATE_TEXT, type TrackState } from './states.js';
import { isoFromEpoch } from './time.js';

export interface CandidateOut {
  com: string;
  company: string;
  company_en: string;
  /** 0..1: the share of the number-format evidence pointing at this courier (1 when the caller named it). */
  confidence: number;
}

export interface KuaidTrackData {
  no: string;
  com: string;
  company: string;
  company_en: string;
  state: TrackState;
  state_text: string;
  finished: boolean;
  /** Waiting in / signed at a parcel locker or pickup station. */
  at_locker: boolean;
  /** Time of the newest trace (+08:00); null when there is no trace yet. */
  updated_at: string | null;
  /** When this answer was fetched from the provider (+08:00): a cached answer keeps its original time. */
  queried_at: string;
  traces: Trace[];
  /** Present when the number fits several couriers; the best guess first. */
  candidates?: CandidateOut[];
  provider: ProviderId;
}

export interface KuaidDetectData {
  no: string;
  com: string;
  company: string;
  company_en: string;
  needs_phone: boolean;
  /** Confidence of `com`, the first candidate. */
  confidence: number;
  /** The first two candidates are close: ask the caller (or pass com=) rather than trust the first. */
  ambiguous: boolean;
  candidates: CandidateOut[];
}

export const candidateOut = (r: RankedCourier): CandidateOut => ({
  com: r.courier.code,
  company: r.courier.zh,
  company_en: r.courier.en,
  confidence: r.confidence,
});

/** Newest first whatever the provider did; only re-sorted when every time parsed (ISO +08:00 sorts as text). */
export function newestFirst(traces: Trace[]): Trace[] {
  if (traces.some((t) => t.time === null)) return traces;
  // Array.prototype.sort is stable, so equal times keep the provider's (already newest-first) order.
  const key = (tr: Trace): string => tr.time ?? '';
  return [...traces].sort((a, b) => (key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0));
}

export interface Answer {
  no: string;
  courier: Courier;
  provider: ProviderId;
  track: Track;
  candidates: RankedCourier[] | null;
  nowMs: number;
}

export function toTrackData(a: Answer): KuaidTrackData {
  const traces = newestFirst(a.track.traces);
  const state = a.track.state;
  return {
    no: a.no,
    com: a.courier.code,
    company: a.courier.zh,
    company_en: a.courier.en,
    state,
    state_text: STATE_TEXT[state],
    finished: isFinished(state),
    at_locker: a.track.at_locker,
    updated_at: traces[0]?.time ?? null,
    queried_at: isoFromEpoch(a.nowMs),
    traces,
    ...(a.candidates ? { candidates: a.candidates.map(candidateOut) } : {}),
    provider: a.provider,
  };
}

const MINUTE = 60;
const DAY = 86400;

/**
 * Cache lifetime of an answer, in seconds. Finished parcels never change again; moving ones may only be
 * re-queried every 30 minutes (Kuaidi100 locks numbers polled more often); a parcel waiting for pickup
 * often gets its first scan within minutes. A refusal usually turns into a return, so it is kept shorter.
 * ("No record at all" is not an answer: it fails as NOT_FOUND, free, and is remembered in memo.ts.)
 */
export function cacheTtlFor(state: TrackState): number {
  if (state === 'PENDING') return 10 * MINUTE;
  if (state === 'REJECTED') return DAY;
  if (isFinished(state)) return 7 * DAY;
  return 30 * MINUTE;
}
