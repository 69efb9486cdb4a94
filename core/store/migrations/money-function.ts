// PostgreSQL only: the function that runs the money writes of many concurrent calls (holds placed, captures with
// their ledger and call-log rows, holds released, one-step charges) as one statement, so they share one round trip
// and one commit (core/billing/pg-money.ts). One transaction per call capped a worker at a few thousand commits a
// second; with this a commit carries every call that finished meanwhile.
//
// Input: {"now": ms, "jobs": [...]}, each job one of
//   {"k":"h","id":hold,"u":user,"a":amount,"e":expires}        place a hold (true, or false: available too low)
//   {"k":"c","id":hold,"u":user,"op":operation,"rows":[[...]]}  capture: hold -> debit + ledger row + log rows;
//                                                               the balance after, or "gone" / "duplicate"
//   {"k":"r","id":hold,"u":user}                                 release (null)
//   {"k":"s","id":ref,"u":user,"a":amount,"op":operation,"rows":[[...]]}
//                                                                charge at once: the guarded debit (balance - held
//                                                                >= amount) + ledger row + log rows, no hold row;
//                                                                the balance after, false (available too low) or
//                                                                "duplicate"
// Output: one value per job, in order. A job that fails alone (a capture whose hold was swept, a reused ledger
// reference) is undone alone (its own block); anything else fails the statement and so every job of it.
// Every user row the batch touches is locked first, in id order: two workers' batches then never wait on each
// other in a circle (a deadlock would cost both a second and fail one batch).
//
// Migration 014 created the function without "s", 015 replaces it; both call this, so a new database gets the
// current function at 014 and the same again at 015, and one that stopped at 014 is brought up to date by 015.
import { type Kysely, sql } from 'kysely';

/**
 * What a charge writes once its debit is done (v_user, v_amount, v_balance set): the ledger row, its reference the
 * job's id, the job's call-log rows (each an array of INSERT_CALL_LOG's parameters, in order), and its answer.
 */
const CHARGE_ROWS = `insert into ledger (user_id, amount, balance_after, kind, ref, operation, note, created_at)
            values (v_user, -v_amount, v_balance, 'charge', j->>'id', j->>'op', null, v_now);
          insert into call_log (request_id, user_id, key_id, operation, status, error_code, charged,
              cached, free_reason, duration_ms, plugin_ms, ip, created_at, canary, failure_class, upstream,
              upstream_cost)
            select x->>0, (x->>1)::bigint, (x->>2)::bigint, x->>3, (x->>4)::int, x->>5, (x->>6)::bigint,
              (x->>7)::int, x->>8, (x->>9)::real, (x->>10)::real, x->>11, (x->>12)::bigint,
              coalesce((x->>13)::int, 0), x->>14, x->>15, coalesce((x->>16)::bigint, 0)
            from jsonb_array_elements(j->'rows') with ordinality as r(x, n) order by n;
          res := res || to_jsonb(v_balance);`;

/** The end of a charge's own block: a reused ledger reference undoes that job alone. */
const OR_DUPLICATE = `exception when unique_violation then
        res := res || '"duplicate"'::jsonb;
      end;
      v_user := null;`;

export async function createMoneyFunction(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(`
create or replace function tollgate_money(p jsonb) returns jsonb language plpgsql as $fn$
declare
  j jsonb;
  res jsonb := '[]'::jsonb;
  v_now bigint := (p->>'now')::bigint;
  v_user bigint;
  v_amount bigint;
  v_balance bigint;
begin
  perform 1 from users
    where id in (select (e->>'u')::bigint from jsonb_array_elements(p->'jobs') e)
    order by id for update;
  for j in select value from jsonb_array_elements(p->'jobs') loop
    if j->>'k' = 'h' then
      update users set held = held + (j->>'a')::bigint
        where id = (j->>'u')::bigint and balance - held >= (j->>'a')::bigint;
      if found then
        insert into holds (id, user_id, amount, created_at, expires_at)
          values (j->>'id', (j->>'u')::bigint, (j->>'a')::bigint, v_now, (j->>'e')::bigint);
        res := res || 'true'::jsonb;
      else
        res := res || 'false'::jsonb;
      end if;
    elsif j->>'k' = 'c' then
      begin
        delete from holds where id = j->>'id' returning user_id, amount into v_user, v_amount;
        if v_user is null then
          res := res || '"gone"'::jsonb;
        else
          update users set held = held - v_amount, balance = balance - v_amount
            where id = v_user returning balance into v_balance;
          ${CHARGE_ROWS}
        end if;
      ${OR_DUPLICATE}
    elsif j->>'k' = 's' then
      -- A hold placed and captured in the same statement would be a row inserted and deleted and the user row
      -- written twice: the same guard on the debit itself writes what the pair left behind, once.
      begin
        v_user := (j->>'u')::bigint;
        v_amount := (j->>'a')::bigint;
        update users set balance = balance - v_amount
          where id = v_user and balance - held >= v_amount returning balance into v_balance;
        if not found then
          res := res || 'false'::jsonb;
        else
          ${CHARGE_ROWS}
        end if;
      ${OR_DUPLICATE}
    elsif j->>'k' = 'r' then
      delete from holds where id = j->>'id' returning user_id, amount into v_user, v_amount;
      if v_user is not null then
        update users set held = held - v_amount where id = v_user;
      end if;
      v_user := null;
      res := res || 'null'::jsonb;
    else
      raise exception 'tollgate_money: unknown job kind %', j->>'k';
    end if;
  end loop;
  return res;
end
$fn$`)
    .execute(db);
}
