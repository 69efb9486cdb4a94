// Trial credit: operations.yaml `signup.trial_tokens` (or TRIAL_CREDIT, which overrides it) and/or TRIAL_PLAN for
// TRIAL_PLAN_DAYS, given once per account so a new customer's quick start does not end in 402. "Once" is the unique ledger ref trial:<user> and the unique
// subscription ref trial-plan:<user>; mass sign-up is held back by the per-IP sign-up budget
// (core/console/api/auth-limits.ts) that runs before an account exists.
import type { Kysely } from 'kysely';
import type { PaymentSettings } from '../../config/payment-env.js';
import type { Registry } from '../../registry/registry.js';
import type { Database } from '../../store/schema.js';
import { applyEntry, DuplicateReferenceError } from '../ledger.js';
import { extendSubscription } from '../subscriptions.js';

export interface TrialGrant {
  tokensMicro: number;
  planId: string | null;
}

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return (
    err instanceof DuplicateReferenceError ||
    e.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    e.code === '23505' ||
    /UNIQUE constraint/i.test(e.message ?? '')
  );
}

/** The trial TOKEN (micro) a new account gets now: TRIAL_CREDIT when set, else operations.yaml `signup:`. */
export function trialCreditOf(registry: Registry, settings: PaymentSettings): number {
  return settings.trialCreditMicro ?? registry.config.signup.trialMicro;
}

/** Grants the trial once; a second call for the same user grants nothing and returns null. */
export async function grantTrial(
  db: Kysely<Database>,
  registry: Registry,
  settings: PaymentSettings,
  userId: number,
): Promise<TrialGrant | null> {
  const plan = settings.trialPlanId ? registry.plan(settings.trialPlanId) : undefined;
  const credit = trialCreditOf(registry, settings);
  if (credit <= 0 && !plan) return null;
  try {
    return await db.transaction().execute(async (trx) => {
      if (credit > 0) {
        await applyEntry(trx, {
          userId,
          amount: credit,
          kind: 'grant',
          ref: `trial:${userId}`,
          note: 'trial credit',
        });
      }
      if (plan) await extendSubscription(trx, userId, plan.id, settings.trialPlanDays, `trial-plan:${userId}`);
      return { tokensMicro: credit, planId: plan?.id ?? null };
    });
  } catch (err) {
    if (isUniqueViolation(err)) return null;
    throw err;
  }
}
