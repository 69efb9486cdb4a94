// A user's history through the console: usage per day and operation, the call log with filters and pages,
// its CSV export, and the ledger. Each user here sees only their own calls.
import t from 'tap';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';
import { consoleUser } from './support.js';

let h: TestApp;
let u: Awaited<ReturnType<typeof consoleUser>>;
const requestIds: string[] = [];
const today = new Date(Date.now() + 8 * 3600_000).toISOString().slice(0, 10);

t.before(async () => {
  h = await createTestApp();
  u = await consoleUser(h, '1');
  const other = await h.user('1');
  await h.client.get('/api/echo?msg=other', { 'X-API-Key': other.key });
  for (const path of ['/api/echo?msg=a', '/api/echo?msg=b', '/api/items/9', '/api/echo?n=bad', '/api/throws']) {
    requestIds.push((await h.client.get(path, { 'X-API-Key': u.key })).body.request_id);
  }
});
t.afterEach(() => h.assertReconciled());
t.teardown(() => h.close());

t.test('usage per day and per operation is exact', async (t) => {
  const res = await h.client.get('/console/api/usage?days=7', u.headers);
  t.equal(res.status, 200);
  t.equal(res.body.days, 7);
  t.same(res.body.by_day, [{ day: today, calls: 5, successes: 3, charged: 0.022 }]);
  t.same(res.body.by_operation, [
    { operation: 'echo', calls: 3, successes: 2, charged: 0.02 },
    { operation: 'item', calls: 1, successes: 1, charged: 0.002 },
    { operation: 'throws', calls: 1, successes: 0, charged: 0 },
  ]);
  t.same(res.body.rows, [
    { day: today, operation: 'echo', calls: 3, successes: 2, charged: 0.02 },
    { day: today, operation: 'item', calls: 1, successes: 1, charged: 0.002 },
    { day: today, operation: 'throws', calls: 1, successes: 0, charged: 0 },
  ]);
  t.equal(
    (await h.client.get('/console/api/usage?days=0', u.headers)).body.error.message,
    "'days' must be an integer from 1 to 366.",
  );
});

t.test('the call log, newest first, with filters and pagination', async (t) => {
  const all = await h.client.get('/console/api/calls', u.headers);
  t.equal(all.status, 200);
  t.same(
    all.body.calls.map((c: { request_id: string }) => c.request_id),
    [...requestIds].reverse(),
  );
  t.match(all.body.calls[4], {
    operation: 'echo',
    status: 200,
    error_code: null,
    charged: 0.01,
    cached: false,
    free_reason: null,
    key_id: u.keyId,
    ip: /127\.0\.0\.1/,
  });
  t.match(all.body.calls[1], { operation: 'echo', status: 400, error_code: 'INVALID_INPUT', charged: 0 });
  t.equal(all.body.next_before, null);

  const echo = await h.client.get('/console/api/calls?code=echo&status=success', u.headers);
  t.same(
    echo.body.calls.map((c: { request_id: string }) => c.request_id),
    [requestIds[1], requestIds[0]],
  );
  const errors = await h.client.get('/console/api/calls?status=error', u.headers);
  t.same(
    errors.body.calls.map((c: { error_code: string }) => c.error_code),
    ['INTERNAL', 'INVALID_INPUT'],
  );
  const s400 = await h.client.get('/console/api/calls?status=400', u.headers);
  t.equal(s400.body.calls.length, 1);

  const page1 = await h.client.get('/console/api/calls?limit=2', u.headers);
  t.equal(page1.body.calls.length, 2);
  const page2 = await h.client.get(`/console/api/calls?limit=2&before=${page1.body.next_before}`, u.headers);
  const page3 = await h.client.get(`/console/api/calls?limit=2&before=${page2.body.next_before}`, u.headers);
  t.same(
    [...page1.body.calls, ...page2.body.calls, ...page3.body.calls].map((c: { request_id: string }) => c.request_id),
    [...requestIds].reverse(),
  );
  t.equal(page3.body.next_before, null);

  const future = await h.client.get('/console/api/calls?from=2099-01-01', u.headers);
  t.same(future.body.calls, []);
  const past = await h.client.get(`/console/api/calls?to=${Date.now() - 3_600_000}`, u.headers);
  t.same(past.body.calls, []);
  const window = await h.client.get(
    `/console/api/calls?from=${Date.now() - 3_600_000}&to=2099-01-01T00:00:00Z`,
    u.headers,
  );
  t.equal(window.body.calls.length, 5);
  t.equal((await h.client.get('/console/api/calls?status=maybe', u.headers)).status, 400);
  t.equal((await h.client.get('/console/api/calls?from=yesterday', u.headers)).status, 400);
  t.equal((await h.client.get('/console/api/calls?limit=501', u.headers)).status, 400);
});

t.test('calls.csv has the same rows as the JSON log, with the same filters', async (t) => {
  const res = await h.client.get('/console/api/calls.csv?code=echo&lang=en&tz=UTC', u.headers);
  t.equal(res.status, 200);
  t.match(res.headers['content-type'], /^text\/csv; charset=utf-8/);
  t.equal(res.headers['content-disposition'], 'attachment; filename="calls.csv"');
  const json = (await h.client.get('/console/api/calls?code=echo', u.headers)).body.calls as Array<
    Record<string, unknown>
  >;
  const lines = res.text.split('\r\n');
  t.equal(lines.pop(), '', 'ends with a line break');
  t.equal(
    lines[0],
    '\uFEFFRequest ID,Time (UTC),Operation,Key,Status,Error code,Charged (TOKEN),Cached,Free because,Duration (ms),IP',
  );
  // The key as the console names it (name and prefix), never its internal id; no service-wide row number.
  const keys = new Map(
    ((await h.client.get('/console/api/keys', u.headers)).body.keys as Array<Record<string, unknown>>).map((k) => [
      k.id,
      `${k.name} (${k.prefix})`,
    ]),
  );
  t.same(
    lines.slice(1),
    // The same instant as the JSON's ISO time, written the way spreadsheets read a date (here in UTC).
    json.map((c) =>
      [
        c.request_id,
        String(c.created_at).replace('T', ' ').slice(0, 19),
        c.operation,
        c.key_id === null ? '' : keys.get(c.key_id),
        c.status,
        c.error_code ?? '',
        c.charged,
        c.cached ? 1 : 0,
        c.free_reason ?? '',
        c.duration_ms,
        c.ip,
      ].join(','),
    ),
  );
  t.equal(lines.length, 4);
  const anon = await h.client.get('/console/api/calls.csv');
  t.equal(anon.status, 401);
});

t.test('the ledger, newest first, in TOKEN', async (t) => {
  const res = await h.client.get('/console/api/ledger', u.headers);
  t.equal(res.status, 200);
  t.same(
    res.body.entries.map((e: Record<string, unknown>) => [e.kind, e.amount, e.balance_after, e.ref, e.operation]),
    [
      ['charge', -0.002, 0.978, requestIds[2], 'item'],
      ['charge', -0.01, 0.98, requestIds[1], 'echo'],
      ['charge', -0.01, 0.99, requestIds[0], 'echo'],
      ['grant', 1, 1, `test-grant:${u.userId}`, null],
    ],
  );
  const page = await h.client.get('/console/api/ledger?limit=1', u.headers);
  t.equal(page.body.entries.length, 1);
  t.equal(page.body.next_before, page.body.entries[0].id);
});

t.test('the operations catalogue needs no login and shows prices in TOKEN', async (t) => {
  const res = await h.client.get('/console/api/operations');
  t.equal(res.status, 200);
  const item = res.body.operations.find((o: { code: string }) => o.code === 'item');
  t.same(item, {
    code: 'item',
    name: item.name,
    description: item.description,
    text: { zh: { name: 'item', description: '' }, en: { name: 'item', description: '' } },
    available: true,
    price: 0.002,
    cache_ttl: item.cache_ttl,
    timeout_ms: item.timeout_ms,
    input: {
      type: 'object',
      additionalProperties: false,
      required: ['id'],
      properties: { id: { type: 'string', pattern: '^[0-9]+$' }, fields: { type: 'string' } },
    },
    example: null,
    response_example: null,
    response: null,
    routes: ['GET /api/item', 'POST /api/item', 'GET /api/items/:id'],
  });
  const echo = res.body.operations.find((o: { code: string }) => o.code === 'echo');
  t.match(echo, {
    name: 'Echo',
    description: 'Returns its input (test plugin)',
    price: 0.01,
    cache_ttl: 0,
    example: { msg: 'hello' },
  });
  t.equal(res.body.operations.length, h.services.registry.current.list().length);
});
