// The public view of an operation whose plugin has providers of its own (kuaid, `canary.providers`): a provider in
// trouble makes the operation degraded with that provider's failure, never down; the operation's own probe failing
// is what makes it down; a provider without credentials is not looked at.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { parseOperationsConfig } from '../../core/config/operations-loader.js';
import { initialState } from '../../core/health/status-machine.js';
import type { SubjectRow } from '../../core/health/status-store.js';
import { buildReport } from '../../core/health/status-view.js';
import type { HealthState } from '../../core/store/schema-health.js';

const NOW = Date.UTC(2026, 0, 10, 12);
const text = readFileSync('operations.yaml', 'utf8');
const both = parseOperationsConfig('/x/operations.yaml', text, {
  KUAIDI100_CUSTOMER: 'c',
  KUAIDI100_KEY: 'k',
  KDNIAO_BUSINESS_ID: 'b',
  KDNIAO_API_KEY: 'a',
});
const onlyKdniao = parseOperationsConfig('/x/operations.yaml', text, { KDNIAO_BUSINESS_ID: 'b', KDNIAO_API_KEY: 'a' });

const row = (platform: string, state: HealthState, failedAt: number | null = null, cls: string | null = null) =>
  ({
    ...initialState(NOW - 3_600_000),
    operation: 'kuaid',
    platform,
    state,
    lastFailureAt: failedAt,
    lastClass: cls,
  }) satisfies SubjectRow;
const kuaid = (config: typeof both, rows: SubjectRow[]) =>
  buildReport(config, rows, [], NOW).operations.find((o) => o.code === 'kuaid')!;

t.test('a provider in trouble: degraded with its class; the operation down stays down', async (t) => {
  const broken = row('provider:kuaidi100', 'down', NOW - 60_000, 'credential');
  t.match(kuaid(both, [row('', 'ok'), broken, row('provider:kdniao', 'ok')]), {
    state: 'degraded',
    last_class: 'credential',
    last_failure_at: new Date(NOW - 60_000).toISOString(),
    platforms: [],
  });
  t.match(kuaid(both, [row('', 'ok'), row('provider:kuaidi100', 'degraded', NOW, 'quota')]), {
    state: 'degraded',
    last_class: 'quota',
  });
  t.match(kuaid(both, [row('', 'down', NOW, 'timeout'), broken]), { state: 'down', last_class: 'timeout' });
  t.match(kuaid(both, [row('', 'ok'), row('provider:kuaidi100', 'ok'), row('provider:kdniao', 'ok')]), {
    state: 'ok',
    last_class: null,
  });
  // Kuaidi100 has no credentials here, so no provider is probed alone: an old row of it says nothing.
  t.match(kuaid(onlyKdniao, [row('', 'ok'), broken]), { state: 'ok' });
});
