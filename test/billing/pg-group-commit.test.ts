// Group commit on PostgreSQL (core/billing/pg-money.ts, migrations 014-017): the holds, captures and releases queued
// while a batch is at the database go in one statement and one commit; each job keeps its own outcome, a job that
// fails alone writes nothing (and the batch stays one transaction id), a batch that fails fails every job of it with nothing written, and two processes'
// batches over the same users never deadlock. Then through the gateway: concurrent billed calls share commits and
// each answer carries the balance its own committed ledger row says.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { sql } from 'kysely';
import t from 'tap';
import { KNOWN_FOR_MS } from '../../core/billing/known-balances.js';
import { postEntry } from '../../core/billing/ledger.js';
import { createMoney } from '../../core/billing/money.js';
import { PgMoneyBatch } from '../../core/billing/pg-money.js';
import { toMicro } from '../../core/kernel/money.js';
import type { CallLogRow } from '../../core/store/call-log-rows.js';
import type { Store } from '../../core/store/database.js';
import { createTestApp } from '../helpers/create-test-app.js';
import { freshPgRedis, unreachable } from '../scale/backend.js';
import { openTestStore, seedUser } from '../scale/support.js';

const why = await unreachable();
if (why) t.plan(0, `PostgreSQL group commit: skipped, ${why}`);
else {
  const backend = await freshPgRedis();
  const store = await openTestStore(backend.schema);
  const other = await openTestStore(backend.schema); // a second process's pool
  t.teardown(async () => {
    await store.close();
    await other.close();
    await backend.close();
  });
  const PRICE = 5000;
  let seq = 0;
  const id = () => `req_test_${Date.now()}_${seq++}`;
  const later = () => Date.now() + 60_000;
  const account = async (s: Store, userId: number) => {
    const u = await s.db
      .selectFrom('users')
      .select(['balance', 'held'])
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const holds = await s.db
      .selectFrom('holds')
      .select(sql<number>`count(*)`.as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return { balance: Number(u.balance), held: Number(u.held), holds: Number(holds.n) };
  };
  /**
   * GET over a plain socket: the test's HTTP clients go through nock's interceptors, which here let one request
   * through at a time; the calls must really be concurrent.
   */
  // biome-ignore lint/suspicious/noExplicitAny: test convenience: assertions read body fields freely
  const rawGet = (port: number, path: string, key: string): Promise<{ status: number; body: any }> =>
    new Promise((ok, fail) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (text += d));
      socket.on('error', fail);
      socket.on('end', () => {
        const [head, body] = text.split('\r\n\r\n');
        ok({ status: Number(head.split(' ')[1]), body: JSON.parse(body) });
      });
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key}\r\nConnection: close\r\n\r\n`);
    });
  const row = (requestId: string, userId: number) => [
    requestId,
    userId,
    null,
    'echo',
    200,
    null,
    PRICE,
    0,
    null,
    1.5,
    null,
    '127.0.0.1',
    Date.now(),
  ];

  t.test('holds of one batch: each checked against what the earlier ones left', async (t) => {
    const u = await seedUser(store, '0.015'); // three calls at 0.005
    const batch = new PgMoneyBatch(store.db);
    const ids = [id(), id(), id(), id(), id()];
    const placed = await Promise.all(ids.map((h) => batch.run({ k: 'h', id: h, u: u.userId, a: PRICE, e: later() })));
    t.same(placed, [true, true, true, false, false]);
    t.same(batch.counts, { batches: 1, jobs: 5 }, 'one statement');
    t.same(await account(store, u.userId), { balance: 15_000, held: 15_000, holds: 3 });
    // Captures and a release of the same user, again one statement.
    const [a, b, c] = await Promise.all([
      batch.run({ k: 'c', id: ids[0], u: u.userId, op: 'echo', rows: [row(ids[0], u.userId)] }),
      batch.run({ k: 'c', id: ids[1], u: u.userId, op: 'echo', rows: [row(ids[1], u.userId)] }),
      batch.run({ k: 'r', id: ids[2], u: u.userId }),
    ]);
    t.same([a, b, c], [10_000, 5_000, null], 'each capture answers the balance after itself');
    t.same(batch.counts, { batches: 2, jobs: 8 });
    t.same(await account(store, u.userId), { balance: 5_000, held: 0, holds: 0 });
    const ledger = await store.db
      .selectFrom('ledger')
      .select(['ref', 'amount', 'balance_after'])
      .where('user_id', '=', u.userId)
      .where('kind', '=', 'charge')
      .orderBy('id')
      .execute();
    t.same(
      ledger.map((l) => [l.ref, Number(l.amount), Number(l.balance_after)]),
      [
        [ids[0], -PRICE, 10_000],
        [ids[1], -PRICE, 5_000],
      ],
    );
    const logged = await store.db
      .selectFrom('call_log')
      .select(['request_id', 'charged', 'status'])
      .where('user_id', '=', u.userId)
      .orderBy('id')
      .execute();
    t.same(
      logged.map((l) => [l.request_id, Number(l.charged), l.status]),
      [
        [ids[0], PRICE, 200],
        [ids[1], PRICE, 200],
      ],
    );
  });

  t.test('a job that fails alone is undone alone: a swept hold, a reused reference', async (t) => {
    const u = await seedUser(store, '1');
    const batch = new PgMoneyBatch(store.db);
    const used = id();
    t.equal(await batch.run({ k: 'h', id: used, u: u.userId, a: PRICE, e: later() }), true);
    t.equal(await batch.run({ k: 'c', id: used, u: u.userId, op: 'echo', rows: [row(used, u.userId)] }), 995_000);
    // The same id held again: its capture would write a second ledger row with the same reference.
    const fresh = id();
    await Promise.all([
      batch.run({ k: 'h', id: used, u: u.userId, a: PRICE, e: later() }),
      batch.run({ k: 'h', id: fresh, u: u.userId, a: PRICE, e: later() }),
    ]);
    const outcomes = await Promise.all([
      batch.run({ k: 'c', id: used, u: u.userId, op: 'echo', rows: [row(used, u.userId)] }),
      batch.run({ k: 'c', id: 'req_never_held', u: u.userId, op: 'echo', rows: [row('req_never_held', u.userId)] }),
      batch.run({ k: 'c', id: fresh, u: u.userId, op: 'echo', rows: [row(fresh, u.userId)] }),
    ]);
    t.same(outcomes, ['duplicate', 'gone', 990_000], 'the third capture of the batch commits');
    t.same(await account(store, u.userId), { balance: 990_000, held: PRICE, holds: 1 }, 'the duplicate kept its hold');
    await batch.run({ k: 'r', id: used, u: u.userId });
    t.same(await account(store, u.userId), { balance: 990_000, held: 0, holds: 0 });
    const rows = await store.db
      .selectFrom('call_log')
      .select(sql<number>`count(*)`.as('n'))
      .where('user_id', '=', u.userId)
      .executeTakeFirstOrThrow();
    t.equal(Number(rows.n), 2, 'no log row of the undone captures');
  });

  t.test('a charge at once: the guarded debit with its rows, no hold row; refused or duplicate alone', async (t) => {
    const u = await seedUser(store, '0.015'); // three calls at 0.005
    const other = await seedUser(store, '1');
    const batch = new PgMoneyBatch(store.db);
    // Another process's hold counts against the available balance, as it does for a hold.
    const held = id();
    t.equal(await batch.run({ k: 'h', id: held, u: u.userId, a: PRICE, e: later() }), true);
    const [a, b, c, d] = [id(), id(), id(), id()];
    const spend = (ref: string, userId: number) =>
      batch.run({ k: 's', id: ref, u: userId, a: PRICE, op: 'echo', rows: [row(ref, userId)] });
    const outcomes = await Promise.all([
      spend(a, u.userId),
      spend(b, u.userId),
      spend(c, u.userId),
      spend(d, other.userId),
    ]);
    t.same(outcomes, [10_000, 5_000, false, 995_000], 'the third finds only the held 0.005 left: refused');
    t.same(batch.counts, { batches: 2, jobs: 5 }, 'the four charges in one statement');
    t.same(await account(store, u.userId), { balance: 5_000, held: PRICE, holds: 1 }, 'only the hold placed is a row');
    t.same(await account(store, other.userId), { balance: 995_000, held: 0, holds: 0 });
    // A reference charged before: that job alone is undone, the next of its batch commits.
    const e = id();
    t.same(await Promise.all([spend(a, other.userId), spend(e, other.userId)]), ['duplicate', 990_000]);
    t.same(await account(store, other.userId), { balance: 990_000, held: 0, holds: 0 }, 'the duplicate took nothing');
    const ledger = await store.db
      .selectFrom('ledger')
      .select(['user_id', 'ref', 'amount', 'balance_after'])
      .where('user_id', 'in', [u.userId, other.userId])
      .where('kind', '=', 'charge')
      .orderBy('id')
      .execute();
    t.same(
      ledger.map((l) => [Number(l.user_id), l.ref, Number(l.amount), Number(l.balance_after)]),
      [
        [u.userId, a, -PRICE, 10_000],
        [u.userId, b, -PRICE, 5_000],
        [other.userId, d, -PRICE, 995_000],
        [other.userId, e, -PRICE, 990_000],
      ],
    );
    const logged = await store.db
      .selectFrom('call_log')
      .select(['request_id', 'charged'])
      .where('user_id', 'in', [u.userId, other.userId])
      .orderBy('id')
      .execute();
    t.same(
      logged.map((l) => [l.request_id, Number(l.charged)]),
      [
        [a, PRICE],
        [b, PRICE],
        [d, PRICE],
        [e, PRICE],
      ],
      'a log row per charge, none for the refused or the duplicate',
    );
    await batch.run({ k: 'r', id: held, u: u.userId });
    t.same(await account(store, u.userId), { balance: 5_000, held: 0, holds: 0 });
  });

  t.test('a batch is one transaction id, however many jobs and whichever fail alone', async (t) => {
    // A subtransaction that writes has an XID of its own, and its rows carry it as xmin; one per job (an exception
    // block each) would be 100 here, past the 64 a session keeps without overflowing into pg_subtrans.
    const u = await seedUser(store, '1');
    const poor = await seedUser(store, '0.005');
    const used = id();
    const held = id();
    const jobs = [
      { k: 'h', id: held, u: u.userId, a: PRICE, e: later() },
      ...Array.from({ length: 100 }, (_, i) => {
        const ref = i === 50 ? used : id();
        return { k: 's', id: ref, u: u.userId, a: PRICE, op: 'echo', rows: [row(ref, u.userId)] };
      }),
      { k: 's', id: used, u: u.userId, a: PRICE, op: 'echo', rows: [row(used, u.userId)] },
      // Two rows for one job (a call and the attempt it made), written after the charges' rows, in their order.
      { k: 'c', id: held, u: u.userId, op: 'echo', rows: [row(held, u.userId), row(`${held}_attempt`, u.userId)] },
      { k: 'c', id: held, u: u.userId, op: 'echo', rows: [row(held, u.userId)] },
      { k: 's', id: id(), u: poor.userId, a: 2 * PRICE, op: 'echo', rows: [row('req_refused', poor.userId)] },
    ];
    const sent = JSON.stringify({ now: Date.now(), jobs });
    const results = (await sql<{ r: unknown[] }>`select tollgate_money(${sent}::jsonb) as r`.execute(store.db)).rows[0]
      .r;
    const charged = Array.from({ length: 100 }, (_, i) => 1_000_000 - PRICE * (i + 1));
    t.same(results, [true, ...charged, 'duplicate', 495_000, 'gone', false], 'each job its own outcome');
    t.same(await account(store, u.userId), { balance: 495_000, held: 0, holds: 0 });
    t.same(await account(store, poor.userId), { balance: 5_000, held: 0, holds: 0 });
    const ledger = await sql<{ n: string; writers: string }>`select count(*) as n,
      count(distinct xmin::text) as writers from ledger where user_id = ${u.userId} and kind = 'charge'`.execute(
      store.db,
    );
    const { n, writers } = ledger.rows[0];
    t.equal(Number(n), 101, 'a ledger row per charge and the capture, none for the duplicate or the gone');
    t.equal(Number(writers), 1, 'all written by one transaction id: no subtransaction per job');
    const logged = await store.db
      .selectFrom('call_log')
      .select('request_id')
      .where('user_id', 'in', [u.userId, poor.userId])
      .orderBy('id')
      .execute();
    t.same(
      logged.map((l) => l.request_id),
      [...jobs.slice(1, 101).map((j) => j.id), held, `${held}_attempt`],
      "the kept jobs' log rows in job order, none of the duplicate, the gone or the refused",
    );
  });

  t.test('a failed batch fails every job of it, with nothing written', async (t) => {
    const a = await seedUser(store, '1');
    const b = await seedUser(store, '1');
    const batch = new PgMoneyBatch(store.db);
    const [ha, hb] = [id(), id()];
    await Promise.all([
      batch.run({ k: 'h', id: ha, u: a.userId, a: PRICE, e: later() }),
      batch.run({ k: 'h', id: hb, u: b.userId, a: PRICE, e: later() }),
    ]);
    // A storage fault on a's ledger row only (a trigger): the whole statement, b's capture with it, fails.
    await sql
      .raw(`create function fail_ledger() returns trigger language plpgsql as $$ begin
      if new.user_id = ${a.userId} then raise exception 'disk full (test)'; end if; return new; end $$;
      create trigger fail_ledger before insert on ledger for each row execute function fail_ledger()`)
      .execute(store.db);
    const settled = await Promise.allSettled([
      batch.run({ k: 'c', id: ha, u: a.userId, op: 'echo', rows: [row(ha, a.userId)] }),
      batch.run({ k: 'c', id: hb, u: b.userId, op: 'echo', rows: [row(hb, b.userId)] }),
    ]);
    t.same(
      settled.map((s) => s.status),
      ['rejected', 'rejected'],
    );
    t.match(String((settled[1] as PromiseRejectedResult).reason), /disk full/);
    t.same(
      await account(store, b.userId),
      { balance: 1_000_000, held: PRICE, holds: 1 },
      "b's capture was not committed",
    );
    await sql.raw('drop trigger fail_ledger on ledger; drop function fail_ledger()').execute(store.db);
    t.equal(
      await batch.run({ k: 'c', id: hb, u: b.userId, op: 'echo', rows: [row(hb, b.userId)] }),
      995_000,
      'the hold is still there to capture',
    );
    await batch.run({ k: 'r', id: ha, u: a.userId });
    t.same(await account(store, a.userId), { balance: 1_000_000, held: 0, holds: 0 });
  });

  t.test('two processes batching the same users in opposite orders never deadlock', async (t) => {
    const users = [await seedUser(store, '100'), await seedUser(store, '100'), await seedUser(store, '100')];
    const one = new PgMoneyBatch(store.db);
    const two = new PgMoneyBatch(other.db);
    const round = (batch: PgMoneyBatch, order: typeof users) =>
      Promise.all(
        order.map(async (u) => {
          const h = id();
          t.equal(await batch.run({ k: 'h', id: h, u: u.userId, a: PRICE, e: later() }), true);
          t.type(await batch.run({ k: 'c', id: h, u: u.userId, op: 'echo', rows: [row(h, u.userId)] }), 'number');
        }),
      );
    for (let i = 0; i < 20; i++) await Promise.all([round(one, users), round(two, [...users].reverse())]);
    for (const u of users)
      t.same(await account(store, u.userId), { balance: toMicro('100') - 40 * PRICE, held: 0, holds: 0 });
  });

  t.test(
    'through the gateway: concurrent billed calls share commits; each answer is its own committed balance',
    async (t) => {
      const h = await createTestApp({
        settings: { ...backend.settings, redisUrl: null, rateLimitPerSecond: 10_000, rateLimitBurst: 10_000 },
      });
      t.teardown(() => h.close());
      const users = await Promise.all([h.user('1'), h.user('1'), h.user('1'), h.user('1')]);
      const before = { ...h.services.money.batches! };
      const answers = await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const u = users[i % users.length];
          return { userId: u.userId, ...(await rawGet(h.client.port, `/api/echo?msg=m${i}`, u.key)) };
        }),
      );
      t.same(
        answers.map((a) => a.status),
        Array(40).fill(200),
      );
      const jobs = h.services.money.batches!.jobs - before.jobs;
      const batches = h.services.money.batches!.batches - before.batches;
      t.equal(jobs, 80, 'a hold and a capture per call');
      // Commits shared: fewer commits than jobs. How many arrive together is the machine's timing (a loaded CI
      // host spreads 40 requests out: 50 commits seen there, 8-27 on a quiet one), so the ratio itself is the
      // bench's PostgreSQL row (commits per charged call), not an assertion here.
      t.ok(batches < jobs, `80 jobs in ${batches} commits`);
      for (const u of users) {
        const ledger = (await h.ledger(u.userId)).filter((l) => l.kind === 'charge');
        t.equal(ledger.length, 10);
        for (const a of answers.filter((x) => x.userId === u.userId)) {
          const own = ledger.find((l) => l.ref === a.body.request_id);
          t.equal(toMicro(String(a.body.remaining)), own?.balance_after, 'remaining is what its ledger row committed');
        }
        t.same(await h.balance(u.userId), { balance: toMicro('0.9'), held: 0 });
      }
      await h.assertReconciled();
    },
  );

  t.test(
    "remaining: a capture's balance answers without a query for KNOWN_FOR_MS, a change posted here is read again",
    async (t) => {
      const money = createMoney(store);
      const { userId } = await seedUser(store, '1');
      const first = money.remaining(userId);
      t.ok(first instanceof Promise, 'not known yet: read');
      t.equal(await first, toMicro('1'));
      t.equal(money.remaining(userId), toMicro('1'), 'just read: known, no promise');
      const hold = await money.place(userId, PRICE, id(), later());
      if (!hold) throw new Error('hold refused');
      const after = await money.capture(hold, 'echo', []);
      t.equal(after, toMicro('1') - PRICE);
      t.equal(money.remaining(userId), after, "the capture's own balance, no promise");
      // Another process's charge is seen once KNOWN_FOR_MS has passed.
      const theirs = createMoney(other);
      const h2 = await theirs.place(userId, PRICE, id(), later());
      if (!h2) throw new Error('hold refused');
      await theirs.capture(h2, 'echo', []);
      t.equal(money.remaining(userId), after, 'within KNOWN_FOR_MS: as this process committed it');
      await new Promise((r) => setTimeout(r, KNOWN_FOR_MS + 50));
      t.equal(await money.remaining(userId), toMicro('1') - 2 * PRICE, 'then read again');
      // A top-up posted by this process is never answered from memory.
      await postEntry(store.db, { userId, amount: toMicro('2'), kind: 'grant', ref: `test-topup:${userId}` });
      const topped = money.remaining(userId);
      t.ok(topped instanceof Promise, 'read after a change posted here');
      t.equal(await topped, toMicro('3') - 2 * PRICE);
      t.same(await account(store, userId), { balance: toMicro('3') - 2 * PRICE, held: 0, holds: 0 });
    },
  );

  t.test('charged at once: one job, one commit, no hold row, exact either way', async (t) => {
    const money = createMoney(store);
    const { userId } = await seedUser(store, '0.012');
    const before = { ...money.batches! };
    const ref = id();
    const rows: CallLogRow[] = [
      {
        request_id: ref,
        user_id: userId,
        operation: 'phone',
        status: 200,
        charged: PRICE,
        cached: 0,
        duration_ms: 1,
        created_at: Date.now(),
      },
    ];
    t.equal(await money.chargeAtOnce(userId, PRICE, ref, 'phone', rows), toMicro('0.012') - PRICE);
    t.same(
      { batches: money.batches!.batches - before.batches, jobs: money.batches!.jobs - before.jobs },
      { batches: 1, jobs: 1 },
      'the guarded debit with its rows, one job',
    );
    t.same(await account(store, userId), { balance: toMicro('0.012') - PRICE, held: 0, holds: 0 });
    const ledger = await store.db
      .selectFrom('ledger')
      .select(['amount', 'kind', 'ref', 'operation'])
      .where('user_id', '=', userId)
      .where('kind', '=', 'charge')
      .execute();
    t.same(
      ledger.map((l) => ({ ...l, amount: Number(l.amount) })),
      [{ amount: -PRICE, kind: 'charge', ref, operation: 'phone' }],
    );
    const logged = await store.db
      .selectFrom('call_log')
      .select(['request_id', 'charged', 'status'])
      .where('request_id', '=', ref)
      .execute();
    t.same(
      logged.map((r) => ({ ...r, charged: Number(r.charged) })),
      [{ request_id: ref, charged: PRICE, status: 200 }],
    );

    // The second charge fits (0.007 left), the third does not: refused with nothing written, nothing held.
    await money.chargeAtOnce(userId, PRICE, id(), 'phone', []);
    const refusedRef = id();
    await t.rejects(money.chargeAtOnce(userId, PRICE, refusedRef, 'phone', []), {
      name: 'Error',
      message: 'insufficient available balance',
    });
    t.same(await account(store, userId), { balance: toMicro('0.012') - 2 * PRICE, held: 0, holds: 0 });
    t.equal((await store.db.selectFrom('ledger').select('id').where('ref', '=', refusedRef).execute()).length, 0);

    // A reused reference: nothing charged twice, nothing held.
    const { userId: rich } = await seedUser(store, '1');
    await t.rejects(money.chargeAtOnce(rich, PRICE, ref, 'phone', []), /duplicate|reference/i);
    t.same(await account(store, rich), { balance: toMicro('1'), held: 0, holds: 0 });
  });

  t.test(
    'through the gateway: an offline plugin is charged in one step after it ran; a 402 after it writes nothing',
    async (t) => {
      const h = await createTestApp({
        operationsYaml: readFileSync('operations.yaml', 'utf8'),
        pluginDirs: [resolve('plugins')],
        settings: { ...backend.settings, redisUrl: null, rateLimitPerSecond: 10_000, rateLimitBurst: 10_000 },
      });
      t.teardown(() => h.close());
      const u = await h.user('0.012');
      const before = { ...h.services.money.batches! };
      // Beijing Mobile numbers with a city: charged (charge_when precision != none).
      const numbers = ['13800138000', '13800138002', '13800138001'];
      const answers = [];
      for (const phone of numbers) answers.push(await rawGet(h.client.port, `/api/phone?phone=${phone}`, u.key));
      t.same(
        answers.map((a) => [a.status, a.body.deducted]),
        [
          [200, 0.005],
          [200, 0.005],
          [402, 0],
        ],
      );
      t.equal(answers[1].body.remaining, 0.002);
      t.match(answers[2].body.error, { code: 'INSUFFICIENT_BALANCE' });
      t.same(
        {
          batches: h.services.money.batches!.batches - before.batches,
          jobs: h.services.money.batches!.jobs - before.jobs,
        },
        { batches: 3, jobs: 3 },
        'one job and one statement per call: no hold placed ahead of the lookup, none written with the charge',
      );
      t.same(await h.balance(u.userId), { balance: toMicro('0.002'), held: 0 });
      t.same(
        (await h.ledger(u.userId)).filter((l) => l.kind === 'charge').map((l) => [l.amount, l.ref]),
        answers.slice(0, 2).map((a) => [-5000, a.body.request_id]),
      );
      const log = await h.callLog(u.userId);
      t.same(
        log.map((r) => [r.request_id, r.status, Number(r.charged)]),
        answers.map((a, i) => [a.body.request_id, a.status, i < 2 ? 5000 : 0]),
      );
      // A number without a location is answered free by charge_when: no money job at all.
      const mid = { ...h.services.money.batches! };
      const free = await rawGet(h.client.port, '/api/phone?phone=19212345678', u.key);
      t.same([free.status, free.body.deducted, free.body.data.precision], [200, 0, 'none']);
      t.equal(h.services.money.batches!.jobs - mid.jobs, 0);
      await h.assertReconciled();
    },
  );
}
