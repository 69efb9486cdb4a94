// One streamed export at a time per scope (an account, an admin): a concurrency slot taken before the body
// starts and given back once, when the stream ends or the client goes away; a stuck export frees it after ttlMs.
import type { Context } from 'koa';
import { ApiError } from '../../http/errors.js';
import type { Services } from '../../services.js';

/** Takes the slot or answers 429 CONCURRENCY_LIMITED; returns the idempotent release. */
export async function takeExportSlot(
  ctx: Context,
  s: Services,
  scope: string,
  ttlMs: number,
  busyMessage: string,
): Promise<() => Promise<void>> {
  const slot = await s.state.acquireSlot(scope, 1, ttlMs);
  if (!slot) {
    ctx.set('Retry-After', '5');
    throw new ApiError('CONCURRENCY_LIMITED', busyMessage);
  }
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    try {
      await s.state.releaseSlot(scope, slot);
    } catch {
      // best effort: the slot's TTL frees it
    }
  };
}
