// When a customer's call of an operation with canaries last succeeded (a fresh answer, not a cache hit), per
// platform where the canary has platforms. Kept in the shared state, so in a cluster the one process that runs the
// canaries sees every worker's traffic; written at most every WRITE_EVERY_MS per subject and process, so a busy
// operation costs one cache write every few seconds, not one per call. A configured upstream that served the call
// is credited too, and so is the plugin's own provider the answer names in its `provider` field (kuaid's).
import { type CanaryConfig, providerSubject } from '../config/canary-config.js';
import type { MaybePromise } from '../kernel/maybe-promise.js';
import type { SharedState } from './shared-state.js';
import { upstreamSubject } from './upstream-health.js';

export interface LiveSuccess {
  /**
   * A live success of `op`; `dataJson` is its result (the platform is read from it), `upstream` the configured
   * upstream that served it (its own status is credited too). Never throws, never waits.
   */
  note(op: { code: string; canary: CanaryConfig | null }, dataJson: string | undefined, upstream?: string): void;
  /** The last live success of (operation, platform) this state knows, in ms since the epoch. */
  last(code: string, platform: string): MaybePromise<number | null>;
}

const WRITE_EVERY_MS = 5_000;
/** Longer than any canary interval: an older success is no evidence for a probe due now. */
const KEEP_SECONDS = 2 * 86_400;
// Results put `platform` first (jiexi does); a plain scan of the text avoids parsing a large answer.
const PLATFORM_FIELD = /"platform":"([a-z][a-z0-9_]{0,31})"/;
// A key of the answer's (inside a string value the quotes would be escaped); kuaid puts `provider` last.
const PROVIDER_FIELD = /"provider":"([a-z][a-z0-9_]{0,31})"/;

const keyOf = (code: string, platform: string): string => `h:live:${code}:${platform}`;

export function createLiveSuccess(state: SharedState, clock: () => number = Date.now): LiveSuccess {
  const written = new Map<string, number>();
  const write = (key: string, now: number): void => {
    if (now - (written.get(key) ?? 0) < WRITE_EVERY_MS) return;
    written.set(key, now);
    try {
      const w = state.cacheSet(key, String(now), KEEP_SECONDS);
      if (w instanceof Promise) w.catch(() => written.delete(key));
    } catch {
      written.delete(key);
    }
  };
  return {
    note(op, dataJson, upstream) {
      const canary = op.canary;
      if (!canary) return;
      let platform = '';
      if (canary.samples.some((s) => s.platform !== '')) {
        platform = (dataJson && PLATFORM_FIELD.exec(dataJson.slice(0, 512))?.[1]) || '';
        if (!canary.samples.some((s) => s.platform === platform)) return;
      }
      const now = clock();
      write(keyOf(op.code, platform), now);
      if (upstream !== undefined) write(keyOf(op.code, upstreamSubject(platform, upstream)), now);
      if (canary.providers.length > 0 && dataJson) {
        const provider = PROVIDER_FIELD.exec(dataJson)?.[1];
        if (provider && canary.providers.some((p) => p.id === provider))
          write(keyOf(op.code, providerSubject(platform, provider)), now);
      }
    },
    last(code, platform) {
      const toTime = (v: string | undefined): number | null => (v === undefined ? null : Number(v) || null);
      const got = state.cacheGet(keyOf(code, platform));
      return got instanceof Promise ? got.then(toTime) : toTime(got);
    },
  };
}
