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

/** What the key was charged today by finished calls. Exact: a charged call's log row commits with its charge. */
async function spentFromLog(db: Kysely<Database>, keyId: number): Promise<number> {
  const row = await db
    .selectFrom('call_log')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('charged'), eb.lit(0)).as('spent'))
    .where('key_id', '=', keyId)
    .where('created_at', '>=', chinaDayStart())
    .executeTakeFirstOrThrow();
  return Number(row.spent);
}

/** After a restart (or a Redis that lost its data) the day's counter is rebuilt from the call log. */
async function ensureCounter(db: Kysely<Database>, state: SharedState, keyId: number): Promise<string> {
  const key = spendKey(keyId);
  if ((await state.get(key)) === null) await state.initCounter(key, await spentFromLog(db, keyId), COUNTER_TTL_S);
  return key;
}

export interface SpendReservation {
  /** Give back the part of the reservation that was not charged (all of it when the call failed). */
  settle(chargedMicro: number): Promise<void>;
}

/** Reserve `amount` under `cap`; null when the key's cap for today would be exceeded. */
export async function reserveSpend(
  db: Kysely<Database>,
  state: SharedState,
  keyId: number,
  cap: number,
  amount: number,
): Promise<SpendReservation | null> {
  const key = await ensureCounter(db, state, keyId);
  const spent = await state.incr(key, amount, COUNTER_TTL_S);
  if (spent > cap) {
    await state.giveBack(key, amount, COUNTER_TTL_S);
    return null;
  }
  let settled = false;
  return {
    async settle(charged) {
      if (settled) return;
      settled = true;
      const unused = amount - Math.min(Math.max(charged, 0), amount);
      if (unused > 0) await state.giveBack(key, unused, COUNTER_TTL_S);
    },
  };
}

/** For display (console): the shared counter, or while it is unreachable what the call log says. */
export async function spentToday(db: Kysely<Database>, state: SharedState, keyId: number): Promise<number> {
  try {
    return (await state.get(await ensureCounter(db, state, keyId))) ?? 0;
  } catch (err) {
    if (err instanceof StateUnavailableError) return spentFromLog(db, keyId);
    throw err;
  }
}
