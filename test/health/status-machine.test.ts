// The state machine of one subject: thresholds debounce the changes, only real changes alert, probes back off
// while a subject stays down.

import t from 'tap';
import {
  CONFIRM_MS,
  eventOf,
  initialState,
  MAX_BACKOFF_MS,
  nextDelay,
  type Observation,
  observe,
} from '../../core/health/status-machine.js';

const cfg = { intervalMs: 1_800_000, failuresToDown: 2, successesToRecover: 2 };
const fail = (at: number): Observation => ({ ok: false, class: 'risk_control', field: null, detail: 'wall', at });
const pass = (at: number): Observation => ({ ok: true, class: null, field: null, detail: 'ok', at });

t.test('unknown -> ok is silent; ok -> degraded -> down -> (two successes) ok', async (t) => {
  let s = initialState(0);
  const steps: Array<[Observation, string, string | null]> = [
    [pass(1), 'ok', null],
    [fail(2), 'degraded', 'operation.degraded'],
    [fail(3), 'down', 'operation.down'],
    [fail(4), 'down', null],
    [pass(5), 'down', null],
    [fail(6), 'down', null],
    [pass(7), 'down', null],
    [pass(8), 'ok', 'operation.recovered'],
  ];
  for (const [o, state, event] of steps) {
    const r = observe(s, o, cfg);
    s = r.next;
    t.equal(s.state, state, `at ${o.at}`);
    t.equal(r.change ? eventOf(r.change) : null, event, `event at ${o.at}`);
  }
  t.equal(s.since, 8);
  t.equal(s.lastSuccessAt, 8);
  t.equal(s.lastFailureAt, 6);
  t.equal(s.lastClass, 'risk_control');
});

t.test('the next probe: an interval after success, soon to confirm, then backing off to the cap', async (t) => {
  t.equal(nextDelay(cfg, 0), 1_800_000);
  t.equal(nextDelay(cfg, 1), CONFIRM_MS);
  t.equal(nextDelay(cfg, 2), 1_800_000);
  t.equal(nextDelay(cfg, 3), 3_600_000);
  t.equal(nextDelay(cfg, 4), 7_200_000);
  t.equal(nextDelay(cfg, 10), MAX_BACKOFF_MS);
  // A day-long interval is never shortened by the cap.
  t.equal(nextDelay({ intervalMs: 86_400_000, failuresToDown: 1 }, 5), 86_400_000);
  const r = observe(initialState(0), fail(1000), cfg);
  t.equal(r.next.nextProbeAt, 1000 + CONFIRM_MS);
});
