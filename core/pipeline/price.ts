// Stage: decide before the plugin runs whether this call is free (plan quota, free operation) or costs its price.
import type { Stage } from './call.js';

export const price: Stage = async (call, s) => {
  await s.plans.price(call);
  return undefined;
};
