// Leases of the Redis slots this process holds. A slot is written with a short lease (SLOT_LEASE_MS) and renewed
// here while its call runs, up to the caller's TTL. A process that dies stops renewing, so its slots free
// themselves within one lease instead of blocking a key's in-flight cap or a plan's concurrency for minutes.
import type { ScriptRunner } from './redis-scripts.js';

export interface SlotLeases {
  hold(key: string, token: string, ttlMs: number): void;
  drop(key: string, token: string): void;
  close(): void;
}

export function createSlotLeases(renew: ScriptRunner, leaseMs: number, connected: () => boolean): SlotLeases {
  /** "key\ntoken" -> the time the caller's own TTL ends (renewing stops then). */
  const held = new Map<string, number>();
  let timer: NodeJS.Timeout | null = null;

  const tick = async (): Promise<void> => {
    const now = Date.now();
    const keys: string[] = [];
    const tokens: string[] = [];
    for (const [id, until] of held) {
      if (until <= now) {
        held.delete(id);
        continue;
      }
      const [key, token] = id.split('\n') as [string, string];
      keys.push(key);
      tokens.push(token);
    }
    if (held.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
    if (keys.length === 0 || !connected()) return;
    // Renew in chunks: one script call per 500 slots keeps each Redis call short.
    for (let i = 0; i < keys.length; i += 500) {
      await renew(keys.slice(i, i + 500), [leaseMs, ...tokens.slice(i, i + 500)]).catch(() => undefined);
    }
  };

  return {
    hold(key, token, ttlMs) {
      held.set(`${key}\n${token}`, Date.now() + ttlMs);
      // Renew three times per lease, so one slow or lost renewal does not let a live slot lapse.
      if (!timer) {
        timer = setInterval(() => void tick(), Math.max(100, Math.floor(leaseMs / 3)));
        timer.unref();
      }
    },
    drop(key, token) {
      held.delete(`${key}\n${token}`);
    },
    close() {
      if (timer) clearInterval(timer);
      timer = null;
      held.clear();
    },
  };
}
