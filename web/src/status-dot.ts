// The canary state of each operation, from the public /status.json (the status page's report), as a small dot
// beside the operation in the docs and the debugger. Read once per page load: the report itself is refreshed
// every 15 s server-side, and a dot is a hint, never a gate (a failed read shows no dots).
import { h } from './dom.js';
import { t } from './i18n/index.js';

type HealthState = 'unknown' | 'ok' | 'degraded' | 'down';
let states: Promise<Map<string, HealthState>> | null = null;

export function operationStates(): Promise<Map<string, HealthState>> {
  states ??= fetch('/status.json')
    .then((r) => (r.ok ? (r.json() as Promise<{ operations: Array<{ code: string; state: HealthState }> }>) : null))
    .then((report) => new Map((report?.operations ?? []).map((o) => [o.code, o.state])))
    .catch(() => new Map<string, HealthState>());
  return states;
}

/** The dot of one operation, or nothing when it has no canaries. */
export function statusDot(code: string, known: Map<string, HealthState>): HTMLElement | '' {
  const state = known.get(code);
  if (!state) return '';
  const label = t(`status.${state}`);
  return h('span', {
    class: `status-dot status-${state}`,
    attrs: { title: label, 'aria-label': label, role: 'img', 'data-testid': `status-dot-${code}` },
  });
}

/** The dot with its state in words and a link to the status page, for one operation's own page. */
export function statusLine(code: string, known: Map<string, HealthState>): HTMLElement | '' {
  const state = known.get(code);
  if (!state) return '';
  return h(
    'a',
    { class: 'status-line small', attrs: { href: '/status', 'data-testid': 'status-line' } },
    statusDot(code, known),
    t(`status.${state}`),
  );
}
