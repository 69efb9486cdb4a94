// What a user receives: an admin's grant or deduction of TOKEN, and the contents of a plan or package
// (bought through an order or redeemed from a code). Item delivery runs inside the caller's transaction so
// the claim (order paid, code used) and the money move together or not at all.
import { randomBytes } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Registry } from '../registry/registry.js';
import type { Database, LedgerKind } from '../store/schema.js';
import { applyEntry, postEntry } from './ledger.js';
import { type ActiveSubscription, extendSubscription } from './subscriptions.js';

export type ItemKind = 'plan' | 'package';

/** A plan or package from operations.yaml, described the same way for orders and redeem codes. */
export interface CatalogueItem {
  kind: ItemKind;
  id: string;
  name: string;
  priceMicro: number;
}

export class ItemGoneError extends Error {
  constructor(
    readonly kind: ItemKind,
    readonly id: string,
  ) {
    super(`the ${kind} "${id}" is no longer offered`);
  }
}

export function findItem(registry: Registry, kind: ItemKind, id: string): CatalogueItem | undefined {
  if (kind === 'plan') {
    const p = registry.plan(id);
    return p && { kind, id: p.id, name: p.name, priceMicro: p.priceMicro };
  }
  const p = registry.package(id);
  return p && { kind, id: p.id, name: p.name, priceMicro: p.priceMicro };
}

export interface Delivery {
  /** micro-TOKEN credited (package tokens or the plan's grant_tokens). */
  tokensMicro: number;
  balanceAfter: number | null;
  subscription: ActiveSubscription | null;
}

/** Deliver a plan (subscription days + grant_tokens) or a package (tokens), once per `ref`. */
export async function deliverItem(
  trx: Transaction<Database>,
  registry: Registry,
  userId: number,
  kind: ItemKind,
  itemId: string,
  ref: string,
  packageKind: LedgerKind,
): Promise<Delivery> {
  if (kind === 'package') {
    const pkg = registry.package(itemId);
    if (!pkg) throw new ItemGoneError(kind, itemId);
    const balanceAfter = await applyEntry(trx, {
      userId,
      amount: pkg.tokensMicro,
      kind: packageKind,
      ref,
      note: pkg.name,
    });
    return { tokensMicro: pkg.tokensMicro, balanceAfter, subscription: null };
  }
  const plan = registry.plan(itemId);
  if (!plan) throw new ItemGoneError(kind, itemId);
  const subscription = await extendSubscription(trx, userId, plan.id, plan.durationDays, ref);
  let balanceAfter: number | null = null;
  if (plan.grantMicro > 0) {
    balanceAfter = await applyEntry(trx, { userId, amount: plan.grantMicro, kind: 'plan_grant', ref, note: plan.name });
  }
  return { tokensMicro: plan.grantMicro, balanceAfter, subscription };
}

export interface AdminGrant {
  userId: number;
  /** micro-TOKEN; negative deducts (never below what holds reserve). */
  amount: number;
  reason: string;
  adminId: number;
}

/** One ledger row; InsufficientBalanceError when a deduction exceeds the available balance. */
export async function grantTokens(db: Kysely<Database>, g: AdminGrant): Promise<{ balanceAfter: number; ref: string }> {
  const ref = `grant:${Date.now()}:${randomBytes(6).toString('hex')}`;
  const balanceAfter = await postEntry(db, {
    userId: g.userId,
    amount: g.amount,
    kind: g.amount > 0 ? 'grant' : 'adjustment',
    ref,
    note: `${g.reason} (by admin ${g.adminId})`,
  });
  return { balanceAfter, ref };
}
