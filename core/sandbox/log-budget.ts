// How much a plugin may log. host.log writes synchronously to the gateway's log, so an unbounded loop of it is a
// denial of service on the disk and the log pipeline (one call wrote 20 MB in 2 s). Each call may write
// PER_CALL_LINES lines and PER_CALL_BYTES bytes; on top, each (plugin, API key) pair has a token bucket, so many
// small calls from one key cannot flood either. What is dropped is counted and reported once when the call ends.
export const LOG_LIMITS = {
  perCallLines: 100,
  perCallBytes: 32 * 1024,
  /** Sustained lines per second per plugin and key, and the bucket size. */
  perKeyPerSecond: 20,
  perKeyBurst: 200,
  /** Buckets kept; the oldest go first beyond this (a bucket left alone refills anyway). */
  maxBuckets: 10_000,
} as const;

export interface LogMeter {
  logLines: number;
  logBytes: number;
  logDropped: number;
  /** Whose budget the call's lines draw from: plugin + API key (or the plugin alone). */
  readonly logScope: string;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class LogBudget {
  private readonly buckets = new Map<string, Bucket>();

  /** May this call write a line of `bytes` bytes now? Counts the line either way. */
  admit(call: LogMeter, bytes: number, now = Date.now()): boolean {
    if (
      call.logLines >= LOG_LIMITS.perCallLines ||
      call.logBytes + bytes > LOG_LIMITS.perCallBytes ||
      !this.take(call.logScope, now)
    ) {
      call.logDropped++;
      return false;
    }
    call.logLines++;
    call.logBytes += bytes;
    return true;
  }

  private take(scope: string, now: number): boolean {
    const prev = this.buckets.get(scope);
    const refill = prev ? ((now - prev.at) / 1000) * LOG_LIMITS.perKeyPerSecond : LOG_LIMITS.perKeyBurst;
    const tokens = Math.min(LOG_LIMITS.perKeyBurst, (prev?.tokens ?? 0) + refill);
    this.buckets.delete(scope); // re-insert: Map order is then least recently used first
    if (tokens < 1) {
      this.buckets.set(scope, { tokens, at: now });
      return false;
    }
    this.buckets.set(scope, { tokens: tokens - 1, at: now });
    if (this.buckets.size > LOG_LIMITS.maxBuckets) {
      const oldest = this.buckets.keys().next().value;
      if (oldest !== undefined) this.buckets.delete(oldest);
    }
    return true;
  }
}
