// PostgreSQL only: the money writes of many concurrent calls (holds placed, captures with their ledger and
// call-log rows, holds released) as one statement, so they share one round trip and one commit
// (core/billing/pg-money.ts). One transaction per call capped a worker at a few thousand commits a second; with
// this a commit carries every call that finished meanwhile.
//
// Input: {"now": ms, "jobs": [...]}, each job one of
//   {"k":"h","id":hold,"u":user,"a":amount,"e":expires}        place a hold (true, or false: available too low)
//   {"k":"c","id":hold,"u":user,"op":operation,"rows":[[...]]}  capture: hold -> debit + ledger row + log rows;
//                                                               the balance after, or "gone" / "duplicate"
//   {"k":"r","id":hold,"u":user}                                 release (null)
// Output: one value per job, in order. A job that fails alone (a capture whose hold was swept, a reused ledger
// reference) is undone alone (its own block); anything else fails the statement and so every job of it.
// Every user row the batch touches is locked first, in id order: two workers' batches then never wait on each
// other in a circle (a deadlock would cost both a second and fail one batch).
import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './context.js';

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  if (ctx.dialect !== 'postgres') return;
  await sql`
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
          insert into ledger (user_id, amount, balance_after, kind, ref, operation, note, created_at)
            values (v_user, -v_amount, v_balance, 'charge', j->>'id', j->>'op', null, v_now);
          insert into call_log (request_id, user_id, key_id, operation, status, error_code, charged, cached,
              free_reason, duration_ms, plugin_ms, ip, created_at, canary, failure_class, upstream, upstream_cost)
            select x->>0, (x->>1)::bigint, (x->>2)::bigint, x->>3, (x->>4)::int, x->>5, (x->>6)::bigint,
              (x->>7)::int, x->>8, (x->>9)::real, (x->>10)::real, x->>11, (x->>12)::bigint,
              coalesce((x->>13)::int, 0), x->>14, x->>15, coalesce((x->>16)::bigint, 0)
            from jsonb_array_elements(j->'rows') with ordinality as r(x, n) order by n;
          res := res || to_jsonb(v_balance);
        end if;
      exception when unique_violation then
        res := res || '"duplicate"'::jsonb;
      end;
      v_user := null;
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
$fn$`.execute(db);
}
