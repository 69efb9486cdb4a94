// Stage: decide before the plugin runs whether this call is free (plan quota, free operation) or costs its price,
// and, for a key with a daily spending cap, reserve that price against the cap before any money is held.
import { deny } from '../http/errors.js';
import { toToken } from '../billing/money.js';
import { reserveSpend } from '../billing/spend-cap.js';
import type { Stage } from './call.js';

export const price: Stage = async (call, s) => {
  await s.plans.price(call);
  const cap = call.identity!.dailySpendCap;
  if (cap === null || call.price === 0) return undefined;
  const reservation = await reserveSpend(s.store.db, s.state, call.identity!.keyId, cap, call.price);
  if (!reservation) {
    return deny('INSUFFICIENT_BALANCE', `This key's daily spending cap of ${toToken(cap)} TOKEN is reached; it resets at midnight China time (UTC+8).`);
  }
  // Cleanups run after capture or release: a failed call charged 0 and a free cache hit too, so both give
  // their reservation back; a charged call keeps exactly what it paid.
  call.cleanups.push(() => reservation.settle(call.charged));
  return undefined;
};
