// A key's daily spending cap (api_keys.daily_spend_cap, micro-TOKEN per China day). The price of a charged
// call is reserved against `spend:<keyId>:<chinaDay>` in shared state before the hold, so concurrent calls
// on several processes cannot overshoot it together; what the call did not end up charging is given back.
import type { Kysely } from 'kysely';
import { chinaDay, chinaDayStart } from '../kernel/china-day.js';
import { type SharedState, StateUnavailableError } from '../state/shared-state.js';
import type { Database } from '../store/schema.js';

const COUNTER_TTL_S = 2 * 24 * 3600;

export function spendKey(keyId: number, now = Date.now()): string {
  return `spend:${keyId}:${chinaDay(now)}`;
}

/** An API key and the user it belongs to. */
export interface KeyOwner {
  keyId: number;
  userId: number;
}

/**
 * What the key was charged today by finished calls. Exact: a charged call's log row commits with its charge. Read
 * through the owner's (user_id, created_at) index, today's rows only: call_log has no index on key_id, and without
 * the user the first capped call after a restart scanned the whole log.
 */
export function spentFromLogQuery(db: Kysely<Database>, key: KeyOwner) {
  return db
    .selectFrom('call_log')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('charged'), eb.lit(0)).as('spent'))
    .where('user_id', '=', key.userId)
    .where('created_at', '>=', chinaDayStart())
    .where('key_id', '=', key.keyId);
}

async function spentFromLog(db: Kysely<Database>, key: KeyOwner): Promise<number> {
  return Number((await spentFromLogQuery(db, key).executeTakeFirstOrThrow()).spent);
}

/** After a restart (or a Redis that lost its data) the day's counter is rebuilt from the call log. */
async function ensureCounter(db: Kysely<Database>, state: SharedState, owner: KeyOwner): Promise<string> {
  const key = spendKey(owner.keyId);
  if ((await state.get(key)) === null) await state.initCounter(key, await spentFromLog(db, owner), COUNTER_TTL_S);
  return key;
}

/** Settled once: kept (with what was charged) or given back. */
export interface SpendReservation {
  /** The call succeeded: keep what it was charged, give back the part of the reservation it was not. */
  keep(chargedMicro: number): Promise<void>;
  /** The call failed: give all of it back. */
  giveBack(): Promise<void>;
}

/** Reserve `amount` under `cap`; null when the key's cap for today would be exceeded. */
export async function reserveSpend(
  db: Kysely<Database>,
  state: SharedState,
  owner: KeyOwner,
  cap: number,
  amount: number,
): Promise<SpendReservation | null> {
  const key = await ensureCounter(db, state, owner);
  const spent = await state.incr(key, amount, COUNTER_TTL_S);
  if (spent > cap) {
    await state.giveBack(key, amount, COUNTER_TTL_S);
    return null;
  }
  let settled = false;
  const keep = async (charged: number): Promise<void> => {
    if (settled) return;
    settled = true;
    const unused = amount - Math.min(Math.max(charged, 0), amount);
    if (unused > 0) await state.giveBack(key, unused, COUNTER_TTL_S);
  };
  return { keep, giveBack: () => keep(0) };
}

/** For display (console): the shared counter, or while it is unreachable what the call log says. */
export async function spentToday(db: Kysely<Database>, state: SharedState, owner: KeyOwner): Promise<number> {
  try {
    return (await state.get(await ensureCounter(db, state, owner))) ?? 0;
  } catch (err) {
    if (err instanceof StateUnavailableError) return spentFromLog(db, owner);
    throw err;
  }
}
