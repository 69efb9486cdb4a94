// The per-call metrics (duration histogram, money charged, charged calls), kept as plain numbers per series and
// handed to prom-client's registry as metrics of its own shape when /metrics is read. prom-client's Histogram and
// Counter turn the label object of every observation into a key (sorted names, validation, string building) on
// every call, a measurable share of a cache hit's CPU (docs/performance.md "Costs cited by the code"). Here a call is
// one Map lookup by a joined key and a few additions; the exposition, the cluster sum (AggregatorRegistry reads get())
// and reset() are prom-client's.
import type { MetricValue, MetricValueWithName } from 'prom-client';

interface Series {
  operation: string;
  outcome: string;
  code: string;
  cache: string;
  count: number;
  sum: number;
  /** Observations at or below each bound (not cumulative; summed when read). */
  buckets: number[];
  chargedMicro: number;
  chargedCalls: number;
}

/** What prom-client's Registry and AggregatorRegistry need of a metric. */
export interface RegistryMetric {
  name: string;
  help: string;
  type: 'histogram' | 'counter';
  aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; aggregator: 'sum'; values: MetricValue<string>[] }>;
  reset(): void;
}

export interface CallSeriesNames {
  duration: { name: string; help: string };
  chargedMicro: { name: string; help: string };
  chargedCalls: { name: string; help: string };
}

export class CallSeries {
  private series = new Map<string, Series>();

  constructor(
    /** Upper bounds in seconds, ascending. */
    private readonly bounds: readonly number[],
  ) {}

  observe(operation: string, outcome: string, code: string, cache: string, seconds: number, micro: number): void {
    const key = `${operation}\n${outcome}\n${code}\n${cache}`;
    let s = this.series.get(key);
    if (!s) {
      s = {
        operation,
        outcome,
        code,
        cache,
        count: 0,
        sum: 0,
        buckets: this.bounds.map(() => 0),
        chargedMicro: 0,
        chargedCalls: 0,
      };
      this.series.set(key, s);
    }
    s.count++;
    s.sum += seconds;
    for (let i = 0; i < this.bounds.length; i++) {
      if (seconds <= this.bounds[i]) {
        s.buckets[i]++;
        break;
      }
    }
    if (micro > 0) {
      s.chargedMicro += micro;
      s.chargedCalls++;
    }
  }

  /** The three metrics, to register with a prom-client Registry. */
  metrics(names: CallSeriesNames): RegistryMetric[] {
    const reset = (): void => this.series.clear();
    const metric = (
      type: RegistryMetric['type'],
      { name, help }: { name: string; help: string },
      values: () => MetricValue<string>[],
    ): RegistryMetric => ({
      name,
      help,
      type,
      aggregator: 'sum',
      get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
      reset,
    });
    return [
      metric('histogram', names.duration, () => this.durationValues(names.duration.name)),
      metric('counter', names.chargedMicro, () => this.byOperation((s) => s.chargedMicro)),
      metric('counter', names.chargedCalls, () => this.byOperation((s) => s.chargedCalls)),
    ];
  }

  private durationValues(name: string): MetricValueWithName<string>[] {
    const out: MetricValueWithName<string>[] = [];
    for (const s of this.series.values()) {
      const labels = { operation: s.operation, outcome: s.outcome, code: s.code, cache: s.cache };
      let below = 0;
      this.bounds.forEach((le, i) => {
        below += s.buckets[i];
        out.push({ metricName: `${name}_bucket`, labels: { le, ...labels }, value: below });
      });
      out.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', ...labels }, value: s.count });
      out.push({ metricName: `${name}_sum`, labels, value: s.sum });
      out.push({ metricName: `${name}_count`, labels, value: s.count });
    }
    return out;
  }

  /** A counter by operation; operations with nothing counted are left out, as prom-client leaves them. */
  private byOperation(of: (s: Series) => number): MetricValue<string>[] {
    const totals = new Map<string, number>();
    for (const s of this.series.values())
      if (of(s) > 0) totals.set(s.operation, (totals.get(s.operation) ?? 0) + of(s));
    return [...totals].map(([operation, value]) => ({ labels: { operation }, value }));
  }
}
