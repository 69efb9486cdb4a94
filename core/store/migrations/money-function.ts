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
// reference, a charge refused) is found out before it writes anything, so it writes nothing and the others stand;
// anything else fails the statement and so every job of it.
// Every user row the batch touches is locked first, in id order: two workers' batches then never wait on each
// other in a circle (a deadlock would cost both a second and fail one batch).
//
// Migrations 014 (the first function), 015 (the charge at once), 016 (no exception block per job) and 017 (the
// call-log rows in one statement) all call this: a new database gets the current function at 014 and again later,
// and one that stopped earlier is brought up to date by the next.
import { type Kysely, sql } from 'kysely';

/**
 * A charge's ledger row, its reference the job's id (v_user, v_amount, v_balance set: v_balance the balance after).
 * A reused reference inserts nothing and leaves FOUND false; the job then writes nothing else. Checked this way,
 * not by catching unique_violation: an exception block is a subtransaction with an XID of its own per job, and a
 * transaction with more than 64 of them makes every other session's snapshot look in pg_subtrans while it runs.
 */
const LEDGER_ROW = `insert into ledger (user_id, amount, balance_after, kind, ref, operation, note, created_at)
            values (v_user, -v_amount, v_balance, 'charge', j->>'id', j->>'op', null, v_now)
            on conflict (ref) do nothing;`;

/**
 * The job kept: its call-log rows are written with the batch's others at the end, and its answer is the balance after.
 */
const KEEP_LOG_ROWS = `v_logged := v_logged || v_n;
          res := res || to_jsonb(v_balance);`;

/**
 * Every kept job's call-log rows (each an array of INSERT_CALL_LOG's parameters, in order) in one statement, in job
 * order: a statement per job cost each job its own executor start, snapshot and plan lookup, about a fifth of the
 * function's time per job (bench/money-function.ts).
 */
const INSERT_LOGGED_ROWS = `if cardinality(v_logged) > 0 then
    insert into call_log (request_id, user_id, key_id, operation, status, error_code, charged, cached, free_reason,
        duration_ms, plugin_ms, ip, created_at, canary, failure_class, upstream, upstream_cost)
      select x->>0, (x->>1)::bigint, (x->>2)::bigint, x->>3, (x->>4)::int, x->>5, (x->>6)::bigint, (x->>7)::int,
        x->>8, (x->>9)::real, (x->>10)::real, x->>11, (x->>12)::bigint, coalesce((x->>13)::int, 0), x->>14, x->>15,
        coalesce((x->>16)::bigint, 0)
      from jsonb_array_elements(p->'jobs') with ordinality as job(j, n),
        jsonb_array_elements(job.j->'rows') with ordinality as r(x, m)
      where job.n = any(v_logged)
      order by job.n, r.m;
  end if;`;

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
  v_n int := 0;
  v_logged int[] := '{}';
begin
  perform 1 from users
    where id in (select (e->>'u')::bigint from jsonb_array_elements(p->'jobs') e)
    order by id for update;
  for j in select value from jsonb_array_elements(p->'jobs') loop
    v_n := v_n + 1;
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
      -- The hold row and its user's row are locked before anything is written (the user's already is when the
      -- job names the hold's user), so the ledger row, its reference checked, comes first: a duplicate leaves
      -- everything as it was.
      select user_id, amount into v_user, v_amount from holds where id = j->>'id' for update;
      if v_user is null then
        res := res || '"gone"'::jsonb;
      else
        select balance - v_amount into v_balance from users where id = v_user for update;
        ${LEDGER_ROW}
        if not found then
          res := res || '"duplicate"'::jsonb;
        else
          delete from holds where id = j->>'id';
          update users set held = held - v_amount, balance = v_balance where id = v_user;
          ${KEEP_LOG_ROWS}
        end if;
      end if;
    elsif j->>'k' = 's' then
      -- A hold placed and captured in the same statement would be a row inserted and deleted and the user row
      -- written twice: the same guard on the debit itself writes what the pair left behind, once.
      v_user := (j->>'u')::bigint;
      v_amount := (j->>'a')::bigint;
      select balance - v_amount into v_balance from users where id = v_user and balance - held >= v_amount;
      if not found then
        res := res || 'false'::jsonb;
      else
        ${LEDGER_ROW}
        if not found then
          res := res || '"duplicate"'::jsonb;
        else
          update users set balance = v_balance where id = v_user;
          ${KEEP_LOG_ROWS}
        end if;
      end if;
    elsif j->>'k' = 'r' then
      delete from holds where id = j->>'id' returning user_id, amount into v_user, v_amount;
      if v_user is not null then
        update users set held = held - v_amount where id = v_user;
      end if;
      res := res || 'null'::jsonb;
    else
      raise exception 'tollgate_money: unknown job kind %', j->>'k';
    end if;
  end loop;
  ${INSERT_LOGGED_ROWS}
  return res;
end
$fn$`)
    .execute(db);
}
