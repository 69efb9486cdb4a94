// F12: calls.csv streams in keyset chunks with event-loop turns between them (other requests are served while
// an export runs), is bounded per request (rows and a time window) and limited per user (one at a time, a few
// per minute).
import t from 'tap';
import { CSV_LIMITS } from '../../core/console/api/calls-csv.js';
import { consoleUser } from '../console/support.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

let h: TestApp;
t.before(async () => {
  h = await createTestApp();
});
t.teardown(() => h.close());

const DAY = 24 * 3600 * 1000;

/** `n` free failed calls (what an abuser can log at no cost), the newest `recentMs` ago, one second apart. */
async function seedCalls(userId: number, n: number, newestAgoMs = 0): Promise<void> {
  const db = h.services.store.db;
  const now = Date.now() - newestAgoMs;
  for (let start = 0; start < n; start += 500) {
    const rows = Array.from({ length: Math.min(500, n - start) }, (_, i) => ({
      request_id: `req_seed${userId}_${start + i}`,
      user_id: userId,
      key_id: null,
      operation: 'echo',
      status: 400,
      error_code: 'INVALID_INPUT',
      charged: 0,
      cached: 0,
      free_reason: null,
      duration_ms: 1.5,
      plugin_ms: null,
      ip: '203.0.113.9',
      created_at: now - (n - start - i) * 1000,
    }));
    await db.insertInto('call_log').values(rows).execute();
  }
}

t.test(
  'a big export streams in chunks: another request is answered while it runs, and a second export waits',
  async (t) => {
    const u = await consoleUser(h, 0);
    await seedCalls(u.userId, 30_000);
    const done: string[] = [];
    const exp = h.client.get('/console/api/calls.csv', u.headers).then((r) => (done.push('csv'), r));
    await new Promise((r) => setTimeout(r, 20));
    const second = await h.client.get('/console/api/calls.csv', u.headers);
    const me = await h.client.get('/console/api/me', u.headers).then((r) => (done.push('me'), r));
    const res = await exp;
    t.equal(me.status, 200);
    t.same(done, ['me', 'csv'], 'the /me request finished before the export');
    t.equal(second.status, 429);
    t.same(second.body.error, {
      code: 'CONCURRENCY_LIMITED',
      message: 'An export of this account is already running. Retry when it has finished.',
    });
    t.equal(second.headers['retry-after'], '5');
    t.equal(res.status, 200);
    const lines = res.text.split('\r\n');
    t.equal(lines.pop(), '');
    t.equal(lines.length, 30_001, 'header + every row');
    const ids = lines.slice(1).map((l) => Number(l.split(',')[0].split('_').pop()));
    t.ok(
      ids.every((id, i) => i === 0 || id < ids[i - 1]),
      'newest first, no row twice across chunks',
    );
    t.match(lines[1], /^req_seed\d+_29999,[^,]+,echo,,400,INVALID_INPUT,0,0,,1.5,203.0.113.9$/);
    const after = await h.client.get('/console/api/calls.csv?limit=2', u.headers);
    t.equal(after.status, 200, 'the slot is free once the export finished');
    t.equal(after.text.split('\r\n').length, 4);
    const limited = await h.client.get('/console/api/calls.csv?limit=1', u.headers);
    t.equal(limited.status, 429, `at most ${CSV_LIMITS.burst} exports in a burst`);
    t.equal(limited.body.error.code, 'RATE_LIMITED');
    t.match(limited.body.error.message, /^Too many CSV exports\. Retry in \d+ seconds\.$/);
    t.ok(Number(limited.headers['retry-after']) >= 1);
  },
);

t.test('an export covers at most 92 days and 100,000 rows; older rows need an explicit window', async (t) => {
  const u = await consoleUser(h, 0);
  await seedCalls(u.userId, 3, 100 * DAY);
  await seedCalls(u.userId, 2, 0);
  const recent = await h.client.get('/console/api/calls.csv', u.headers);
  t.equal(
    recent.text.split('\r\n').length,
    4,
    'header + the 2 recent rows; the 100-day-old ones are outside the default window',
  );
  const from = new Date(Date.now() - 101 * DAY).toISOString().slice(0, 10);
  const to = new Date(Date.now() - 99 * DAY).toISOString().slice(0, 10);
  const old = await h.client.get(`/console/api/calls.csv?from=${from}&to=${to}`, u.headers);
  t.equal(old.status, 200);
  t.equal(old.text.split('\r\n').length, 5, 'header + the 3 old rows');
  const wide = await h.client.get(`/console/api/calls.csv?from=2020-01-01&to=2021-01-01`, u.headers);
  t.equal(wide.status, 400);
  t.same(wide.body.error, {
    code: 'INVALID_INPUT',
    message: "An export covers at most 92 days: narrow 'from' and 'to' and export the rest separately.",
  });
  const backwards = await h.client.get(`/console/api/calls.csv?from=2021-01-02&to=2021-01-01`, u.headers);
  t.same(backwards.body.error, { code: 'INVALID_INPUT', message: "'from' must be before 'to'." });
  const tooMany = await h.client.get(`/console/api/calls.csv?limit=100001`, u.headers);
  t.same(tooMany.body.error, { code: 'INVALID_INPUT', message: "'limit' must be an integer from 1 to 100000." });
});
