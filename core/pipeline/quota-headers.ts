// After-charge stage: the plan's quota headers (X-Quota-*) on every answer of a caller with a plan, counted after
// the reservations settled (so a given-back grant is not counted).
import type { MaybePromise } from '../kernel/maybe-promise.js';
import type { Services } from '../services.js';
import type { ApiCall } from './call.js';

/** The plan's quota headers; an answer goes out without them rather than not at all. */
export function addQuotaHeaders(call: ApiCall, s: Services): MaybePromise<void> {
  if (!call.identity) return undefined;
  const failure = (err: unknown): void =>
    s.logger.error('quota headers failed', { request_id: call.requestId, reason: (err as Error).message });
  try {
    const headers = s.plans.quotaHeaders(call.identity.userId);
    if (headers instanceof Promise) return headers.then((h) => void Object.assign(call.headersOut, h), failure);
    Object.assign(call.headersOut, headers);
  } catch (err) {
    failure(err);
  }
  return undefined;
}
