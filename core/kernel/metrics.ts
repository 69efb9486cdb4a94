// Prometheus metrics in text exposition format, kept in-process (no client library needed for a handful).
export interface Metrics {
  observeCall(operation: string, status: number, durationMs: number, chargedMicro: number): void;
  render(extra?: Record<string, number>): string;
}

const BUCKETS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000];

export function createMetrics(): Metrics {
  const calls = new Map<string, number>();
  const charged = new Map<string, number>();
  const histo = new Map<string, { buckets: number[]; sum: number; count: number }>();
  return {
    observeCall(operation, status, durationMs, chargedMicro) {
      const key = `operation="${operation}",status="${status}"`;
      calls.set(key, (calls.get(key) ?? 0) + 1);
      charged.set(operation, (charged.get(operation) ?? 0) + chargedMicro);
      let h = histo.get(operation);
      if (!h) histo.set(operation, (h = { buckets: BUCKETS_MS.map(() => 0), sum: 0, count: 0 }));
      BUCKETS_MS.forEach((b, i) => {
        if (durationMs <= b) h.buckets[i]++;
      });
      h.sum += durationMs;
      h.count++;
    },
    render(extra = {}) {
      const out: string[] = ['# TYPE tollgate_calls_total counter'];
      for (const [k, v] of calls) out.push(`tollgate_calls_total{${k}} ${v}`);
      out.push('# TYPE tollgate_charged_micro_total counter');
      for (const [op, v] of charged) out.push(`tollgate_charged_micro_total{operation="${op}"} ${v}`);
      out.push('# TYPE tollgate_call_duration_ms histogram');
      for (const [op, h] of histo) {
        BUCKETS_MS.forEach((b, i) => out.push(`tollgate_call_duration_ms_bucket{operation="${op}",le="${b}"} ${h.buckets[i]}`));
        out.push(`tollgate_call_duration_ms_bucket{operation="${op}",le="+Inf"} ${h.count}`);
        out.push(`tollgate_call_duration_ms_sum{operation="${op}"} ${h.sum.toFixed(3)}`);
        out.push(`tollgate_call_duration_ms_count{operation="${op}"} ${h.count}`);
      }
      for (const [name, v] of Object.entries(extra)) out.push(`# TYPE ${name} gauge`, `${name} ${v}`);
      return out.join('\n') + '\n';
    },
  };
}
