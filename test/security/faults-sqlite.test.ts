// F6: SQLite disk full. Simulated with PRAGMA max_page_count on the test database (the file cannot grow: the
// same SQLITE_FULL a full disk gives; SQLite then rolls the transaction back itself, which used to make Kysely's
// ROLLBACK throw "cannot rollback - no transaction is active" and mask the real error as 500). Every call answers
// 200 (charged) or 503 UNAVAILABLE with Retry-After (uncharged), never 500; /api/health says the database cannot
// write and recovers when space returns; call-log rows written meanwhile are kept and written later.
// F13: a charged call's log row commits with its charge, so it is there without any flush, and a spending
// counter rebuilt from the log equals the ledger; the same holds for calls made free by a plan and its quota.

import { sql } from 'kysely';
import t from 'tap';
import { createPlans } from '../../core/billing/plan-pricing.js';
import { spentToday } from '../../core/billing/spend-cap.js';
import { createMemoryState } from '../../core/state/memory-state.js';
import { isDatabaseUnavailable, isStorageFault } from '../../core/store/database-errors.js';
import { subscribe } from '../console/support.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

let h: TestApp;
t.before(async () => {
  h = await createTestApp({ settings: { rateLimitPerSecond: 100000, rateLimitBurst: 100000 } });
});
t.teardown(() => h.close());

const pragma = async (text: string): Promise<number> => {
  const rows = (await sql.raw(`pragma ${text}`).execute(h.services.store.db)).rows as Array<Record<string, number>>;
  return Number(Object.values(rows[0] ?? { v: 0 })[0]);
};

t.test(
  'disk full: 503 with Retry-After, never 500, nothing charged; health reports it and recovers',
  { skip: process.env.TOLLGATE_TEST_BACKEND === 'pg-redis' && 'SQLite only' },
  async (t) => {
    // max_page_count binds only the connection it is set on: the gateway's. The writer thread's connection would
    // not see this "full disk", so the gateway writes everything itself here; a real full disk, which every
    // connection sees, the writer thread's included, is faults-disk.test.ts.
    await h.services.store.writerThread?.stop();
    const u = await h.user('10');
    const first = await h.client.get('/api/echo?msg=before', { 'X-API-Key': u.key });
    t.equal(first.status, 200);

    // Freeze the file at its current size, then use up the free room inside its pages.
    await pragma(`max_page_count = ${await pragma('page_count')}`);
    await sql`create table if not exists filler (b text)`.execute(h.services.store.db).catch(() => undefined);
    for (let i = 0; i < 100_000; i++) {
      try {
        await sql`insert into filler (b) values (${'f'.repeat(200)})`.execute(h.services.store.db);
      } catch {
        break;
      }
    }

    const statuses: number[] = [];
    let unavailable = 0;
    for (let i = 0; i < 300 && unavailable < 5; i++) {
      const res = await h.client.get(`/api/echo?msg=full${i}`, { 'X-API-Key': u.key });
      statuses.push(res.status);
      if (res.status === 503) {
        unavailable++;
        t.match(res.body, { success: false, error: { code: 'UNAVAILABLE' }, deducted: 0 });
        t.equal(res.headers['retry-after'], '5');
      }
    }
    t.ok(unavailable > 0, 'the full disk was hit');
    t.same(
      [...new Set(statuses)].filter((s) => s !== 200 && s !== 503),
      [],
      `only 200 and 503, got ${statuses.join(',')}`,
    );
    t.notOk(
      h.logs.some((l) => /cannot rollback/.test(String(l.reason))),
      'the real error is not masked',
    );

    const health = await h.client.get('/api/health');
    t.equal(health.status, 503);
    t.match(health.body, { status: 'down', down: ['database'], database: { status: 'down', reason: 'write_failed' } });
    t.notOk(JSON.stringify(health.body).includes('SQLITE'), 'no driver error text');

    // Space comes back: health recovers on its own, calls work, and the log rows kept meanwhile are written.
    await pragma('max_page_count = 1073741823');
    const healthy = await h.client.get('/api/health');
    t.equal(healthy.status, 200);
    t.match(healthy.body, { status: 'ok', database: { status: 'ok' } });
    const after = await h.client.get('/api/echo?msg=after', { 'X-API-Key': u.key });
    t.equal(after.status, 200);

    const charged = statuses.filter((s) => s === 200).length + 2;
    const ledger = await h.ledger(u.userId);
    t.equal(ledger.filter((r) => r.kind === 'charge').length, charged, 'one charge per 200, none for a 503');
    t.same(await h.balance(u.userId), { balance: 10_000_000 - charged * 10_000, held: 0 });
    const log = await h.callLog(u.userId);
    t.equal(log.length, statuses.length + 2, 'every call has its log row, the 503s included');
    t.equal(log.filter((r) => r.status === 503).length, unavailable);
    await h.assertReconciled();
  },
);

t.test(
  'a charged call is in the call log as soon as it is answered (no buffer to lose), and counters rebuilt from the log match the ledger',
  async (t) => {
    const u = await h.user('1');
    for (let i = 0; i < 3; i++)
      t.equal((await h.client.get(`/api/echo?msg=log${i}`, { 'X-API-Key': u.key })).status, 200);
    t.equal((await h.client.get(`/api/echo?msg=${'x'.repeat(200)}`, { 'X-API-Key': u.key })).status, 400);
    // Read the table directly, without flushing the buffered writer: a crash now would lose only the 400's row.
    const rows = await h.services.store.db
      .selectFrom('call_log')
      .select(['charged', 'status'])
      .where('user_id', '=', u.userId)
      .execute();
    t.same(
      rows.map((r) => [Number(r.charged), r.status]),
      [
        [10_000, 200],
        [10_000, 200],
        [10_000, 200],
      ],
    );
    const charges = (await h.ledger(u.userId)).filter((r) => r.kind === 'charge').reduce((sum, r) => sum - r.amount, 0);
    // A restarted process (empty counters) seeds the day's spending from the log: the ledger's figure.
    t.equal(await spentToday(h.services.store.db, createMemoryState(), u), charges);
    t.equal(charges, 30_000);
  },
);

t.test(
  'calls made free by a plan are logged at once too: a restarted process rebuilds the quota exactly',
  async (t) => {
    const u = await h.user('1');
    await subscribe(h, u.userId, 'basic'); // 3 free calls a day
    for (let i = 0; i < 2; i++)
      t.equal((await h.client.get(`/api/echo?msg=plan${i}`, { 'X-API-Key': u.key })).body.deducted, 0);
    const rows = await h.services.store.db
      .selectFrom('call_log')
      .select('free_reason')
      .where('user_id', '=', u.userId)
      .execute();
    t.same(
      rows.map((r) => r.free_reason),
      ['plan', 'plan'],
      'in the table without a flush',
    );
    const restarted = createPlans(h.services.store.db, createMemoryState(), () => h.services.registry.current);
    t.equal(await restarted.usedToday(u.userId), 2);
  },
);

t.test('storage and timeout errors of both databases are 503 material, bugs are not', async (t) => {
  const unavailable = [
    'SQLITE_FULL',
    'SQLITE_IOERR',
    'SQLITE_IOERR_WRITE',
    'SQLITE_IOERR_SHORT_READ',
    'SQLITE_BUSY_SNAPSHOT',
    'SQLITE_READONLY_DBMOVED',
    '57014',
    '53100',
    '08006',
  ];
  for (const code of unavailable) t.ok(isDatabaseUnavailable({ code, message: 'x' }), code);
  for (const message of [
    'Query read timeout',
    'timeout exceeded when trying to connect',
    'Connection terminated due to connection timeout',
  ]) {
    t.ok(isDatabaseUnavailable(new Error(message)), message);
  }
  for (const code of ['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_ERROR', '23505', '42P01'])
    t.notOk(isDatabaseUnavailable({ code, message: 'x' }), `${code} is a bug`);
  t.ok(isStorageFault({ code: 'SQLITE_IOERR_FSYNC' }));
  t.notOk(isStorageFault({ code: 'SQLITE_BUSY' }), 'busy is not a storage fault: health need not probe writes');
});
