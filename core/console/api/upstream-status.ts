// The admin's view of an operation's configured upstreams (operations.yaml `upstreams:`): each with its rotation
// state from the shared upstream health (ok; cooling down after failures; disabled by an error rule; demoted by its
// canary), until when, its last error (code and time) and what the operator set (cost, priority, weight).
import { toToken } from '../../kernel/money.js';
import type { Operation } from '../../registry/registry.js';
import type { DownKind, UpstreamHealth } from '../../state/upstream-health.js';
import type { UpstreamStatus } from '../contract/catalogue.js';

const STATE: Record<DownKind, UpstreamStatus['state']> = {
  circuit: 'cooling_down',
  disabled: 'disabled',
  canary: 'demoted',
};
const iso = (ms: number): string => new Date(ms).toISOString();

export async function presentUpstreams(op: Operation, health: UpstreamHealth): Promise<UpstreamStatus[]> {
  return Promise.all(
    (op.upstreams ?? []).map(async (u) => {
      const [down, last] = await Promise.all([health.down(op.code, u.id), health.lastError(op.code, u.id)]);
      return {
        id: u.id,
        state: down ? STATE[down.kind] : 'ok',
        until: down ? iso(down.until) : null,
        reason: down?.reason ?? null,
        last_error: last ? { code: last.code, at: iso(last.at) } : null,
        cost_per_call: toToken(u.costMicro),
        priority: u.priority,
        weight: u.weight,
        // Env variables it names that are not set: never tried.
        missing: u.missing,
      };
    }),
  );
}
