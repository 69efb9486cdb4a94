// Stage: reserve the price (available = balance - holds) before the plugin runs. Without enough available
// balance the plugin never runs: 402. A cache hit needs no hold; it is charged in one step when settled.
import { deny } from '../http/errors.js';
import { toToken } from '../kernel/money.js';
import { placeHold } from '../billing/holds.js';
import type { Stage } from './call.js';

export const hold: Stage = async (call, s) => {
  if (call.price === 0 || call.cached) return undefined;
  const op = call.operation!;
  const ok = await placeHold(s.store.db, {
    id: call.requestId,
    userId: call.identity!.userId,
    amount: call.price,
    // Grace (HOLD_GRACE_MS) beyond the deadline before a leftover hold counts as abandoned by a dead process;
    // the hold sweeper of every process releases it then (core/billing/holds.ts).
    expiresAt: Date.now() + op.timeoutMs + s.settings.holdGraceMs,
  }, s.store.dialect);
  if (!ok) return deny('INSUFFICIENT_BALANCE', `This call costs ${toToken(call.price)} TOKEN and the available balance is lower. Top up to continue.`);
  call.holdId = call.requestId;
  return undefined;
};
