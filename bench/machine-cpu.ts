// How busy the whole machine was while a row ran (Linux /proc/stat, all CPUs): a row whose machine was ~100% busy
// is limited by the cores it shares with the load generator, PostgreSQL and Redis, not by the gateway alone.
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';

export interface CpuTicks {
  busy: number;
  total: number;
}

/** Busy and total jiffies of all CPUs since boot, or undefined off Linux. */
export function machineTicks(): CpuTicks | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal: idle and iowait are the time nobody ran.
    const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: total - fields[3] - fields[4], total };
  } catch {
    return undefined;
  }
}

/** Adds the busy and total ticks between `from` and now to `into` (both may be undefined off Linux). */
export function addTicks(into: CpuTicks, from: CpuTicks | undefined): void {
  const to = machineTicks();
  if (!from || !to) return;
  into.busy += to.busy - from.busy;
  into.total += to.total - from.total;
}

/** "machine 97% busy (2 cores)", or '' when nothing was measured. */
export function machineBusyText(t: CpuTicks): string {
  return t.total > 0 ? `machine ${((100 * t.busy) / t.total).toFixed(0)}% busy (${cpus().length} cores)` : '';
}
