// Short-lived answers kept in module scope. The sandbox keeps one persistent context per isolate (see
// core/sandbox/isolate-slot.ts), so these survive between calls served by the same isolate; with a pool of
// N isolates a repeat may land on another one and miss, which only costs one more upstream query.
// Time comes from host.now() (the isolate has no trustworthy clock of its own), passed in by the caller.

export class TtlMemo<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();

  constructor(
    private readonly ttlMs: number,
    /** Oldest entries are dropped beyond this, so a flood of distinct numbers cannot grow the isolate. */
    private readonly capacity: number,
  ) {}

  get(key: string, nowMs: number): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.expires <= nowMs) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.value;
  }

  set(key: string, value: V, nowMs: number): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expires: nowMs + this.ttlMs });
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }

  clear(): void {
    this.entries.clear();
  }
}

/** "No record yet" answers per (operation, number, couriers asked, phone): retries within a minute are free and instant. */
export const NO_RECORD_TTL_MS = 60_000;
export const noRecordMemo = new TtlMemo<{ courier: string; message: string; message_zh: string }>(
  NO_RECORD_TTL_MS,
  5000,
);

/** Kuaidi100 autonumber answers per number prefix (length + first 4 characters): couriers' ranges move slowly. */
export const AUTONUMBER_TTL_MS = 24 * 3600_000;
export const autonumberMemo = new TtlMemo<Array<{ code: string; name: string | null }>>(AUTONUMBER_TTL_MS, 2000);

/** The autonumber cache key: Kuaidi100 itself ranks by number prefix (`noPre`) and length. */
export function numberPrefixKey(no: string): string {
  return `${no.length}:${no.slice(0, 4)}`;
}

/** Tests start each case from an empty isolate state. */
export function clearMemo(): void {
  noRecordMemo.clear();
  autonumberMemo.clear();
}
