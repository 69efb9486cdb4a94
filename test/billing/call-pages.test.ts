// A user's call log in pages (core/billing/usage.ts listCalls): newest first by (created_at, id), each page
// continuing after the previous page's last row, read from the (user_id, created_at) index. Rows are written out
// of time order here on purpose: a call's row is written when it ends, so ids and times need not agree.
import { sql } from 'kysely';
import t from 'tap';
import { listCalls } from '../../core/billing/usage.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

let h: TestApp;
t.before(async () => {
  h = await createTestApp();
});
t.teardown(() => h.close());

const T = 1_790_000_000_000;

async function insertRows(userId: number, times: number[]): Promise<number[]> {
  const ids: number[] = [];
  for (const [i, at] of times.entries()) {
    const row = await h.services.store.db
      .insertInto('call_log')
      .values({
        request_id: `req_pages_${userId}_${i}`,
        user_id: userId,
        operation: 'echo',
        status: 200,
        charged: 0,
        cached: 0,
        duration_ms: 1,
        created_at: at,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    ids.push(Number(row.id));
  }
  return ids;
}

t.test('pages walk the log newest first by time, then id, without gaps or repeats', async (t) => {
  const u = await h.user('1');
  const other = await h.user('1');
  // Written in this order; by time: row 3 is the newest, rows 1 and 4 share a millisecond, row 0 is the oldest.
  const ids = await insertRows(u.userId, [T, T + 30, T + 10, T + 50, T + 30, T + 20]);
  await insertRows(other.userId, [T + 25, T + 60]);
  const expected = [ids[3], ids[4], ids[1], ids[5], ids[2], ids[0]];
  const all = await listCalls(h.services.store.db, { userId: u.userId, limit: 50 });
  t.same(
    all.map((r) => Number(r.id)),
    expected,
  );
  const walked: number[] = [];
  let before: number | undefined;
  for (let page = 0; page < 10; page++) {
    const rows = await listCalls(h.services.store.db, { userId: u.userId, limit: 2, before });
    walked.push(...rows.map((r) => Number(r.id)));
    if (rows.length < 2) break;
    before = Number(rows[rows.length - 1].id);
  }
  t.same(walked, expected, 'pages of two give the same order, each row once');
  // A filter inside a page keeps the order (created_at range as the console's from/to).
  const window = await listCalls(h.services.store.db, { userId: u.userId, limit: 50, from: T + 10, to: T + 31 });
  t.same(
    window.map((r) => Number(r.id)),
    [ids[4], ids[1], ids[5], ids[2]],
  );
});

t.test('a cursor whose row is gone continues below its id', async (t) => {
  const u = await h.user('1');
  const ids = await insertRows(u.userId, [T, T + 1, T + 2, T + 3]);
  await h.services.store.db.deleteFrom('call_log').where('id', '=', ids[2]).execute();
  const rows = await listCalls(h.services.store.db, { userId: u.userId, limit: 50, before: ids[2] });
  t.same(
    rows.map((r) => Number(r.id)),
    [ids[1], ids[0]],
  );
});

t.test('a page reads the (user_id, created_at) index in order, with no sort', async (t) => {
  if (h.services.store.dialect !== 'sqlite') return t.pass('the plan is checked on SQLite');
  const plan = await sql<{ detail: string }>`explain query plan select * from call_log where user_id = ${1}
      and (created_at, id) < (${T}, ${5}) order by created_at desc, id desc limit 50`.execute(h.services.store.db);
  const text = plan.rows.map((r) => r.detail).join(' | ');
  t.match(text, /USING INDEX call_log_user_time/);
  t.notMatch(text, /TEMP B-TREE/, 'the index gives the order');
  const indexes = await sql<{ name: string }>`select name from sqlite_master where type = 'index'
      and tbl_name = 'call_log' and name not like 'sqlite_%' order by name`.execute(h.services.store.db);
  t.same(
    indexes.rows.map((r) => r.name),
    ['call_log_request', 'call_log_user_time'],
    'two indexes for every call-log row to write',
  );
});
