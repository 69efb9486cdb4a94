// Operator settings for online payments and trial credit (README "Payments").
import { resolve } from 'node:path';
import { toMicro } from '../kernel/money.js';

export interface PaymentSettings {
  /** PAYMENTS_FILE: YAML listing payment instances (core/billing/payments/config.ts); null = manual only. */
  paymentsFile: string | null;
  /** PUBLIC_BASE_URL (or PUBLIC_URL): how providers reach us; notify URLs are built from it, never from Host. */
  publicBaseUrl: string | null;
  /** ORDER_EXPIRY_MINUTES: an unpaid online order expires (and is closed upstream) after this long. */
  orderExpiryMinutes: number;
  /** PAYMENT_SWEEP_SECONDS: how often pending orders are queried; 0 turns the sweeper off. */
  sweepSeconds: number;
  /**
   * TRIAL_CREDIT: TOKEN granted once to every new account (micro-TOKEN here); 0 = none. null when unset: then
   * operations.yaml `signup.trial_tokens` decides (core/billing/payments/trial-credit.ts).
   */
  trialCreditMicro: number | null;
  /** TRIAL_PLAN: a plan id from operations.yaml given once to every new account, for TRIAL_PLAN_DAYS days. */
  trialPlanId: string | null;
  trialPlanDays: number;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

export function readPaymentSettings(env: NodeJS.ProcessEnv): PaymentSettings {
  const base = (env.PUBLIC_BASE_URL || env.PUBLIC_URL || '').replace(/\/+$/, '');
  if (base && !/^https?:\/\/[^/?#]+(\/[^?#]*)?$/.test(base))
    throw new Error('PUBLIC_BASE_URL must be an http(s) URL without query string');
  let trialCreditMicro: number | null = null;
  if (env.TRIAL_CREDIT) {
    try {
      trialCreditMicro = toMicro(env.TRIAL_CREDIT);
    } catch {
      throw new Error(`TRIAL_CREDIT must be a TOKEN amount such as 1 or 0.5, got "${env.TRIAL_CREDIT}"`);
    }
    if (trialCreditMicro < 0) throw new Error('TRIAL_CREDIT must not be negative');
  }
  return {
    paymentsFile: env.PAYMENTS_FILE ? resolve(env.PAYMENTS_FILE) : null,
    publicBaseUrl: base || null,
    orderExpiryMinutes: int(env, 'ORDER_EXPIRY_MINUTES', 15, 1),
    sweepSeconds: int(env, 'PAYMENT_SWEEP_SECONDS', 60, 0),
    trialCreditMicro,
    trialPlanId: env.TRIAL_PLAN || null,
    trialPlanDays: int(env, 'TRIAL_PLAN_DAYS', 7, 1),
  };
}
