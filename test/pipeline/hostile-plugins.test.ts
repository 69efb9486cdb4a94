// Hostile plugins through the whole pipeline: each yields its error code, charges nothing, writes no ledger
// row, and the next normal call on the same plugin succeeds (the isolate was replaced or survived). What the
// sandbox refused (a host off the list, a redirect to loopback) is the operator's to read, in the log line of the
// call, never the caller's.

import nock from 'nock';
import t from 'tap';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

nock.disableNetConnect();
let h: TestApp;
t.before(async () => {
  h = await createTestApp();
});
t.afterEach(async () => {
  nock.cleanAll();
  await h.assertReconciled();
});
t.teardown(() => h.close());

interface Case {
  name: string;
  code: string;
  query: string;
  status: number;
  error: string;
  message: RegExp;
  /** The operator's reason, in the call's `plugin failure` log line and nowhere in the answer. */
  detail?: RegExp;
  mock?: () => void;
}

const cases: Case[] = [
  { name: 'loops forever', code: 'loop', query: '', status: 500, error: 'INTERNAL', message: /loop-forever/ },
  {
    name: 'loops after an awaited fetch',
    code: 'loop_after_fetch',
    query: '',
    status: 500,
    error: 'INTERNAL',
    message: /loop-after-fetch/,
    mock: () => void nock('https://api.fixture.test').get('/ping').reply(200, 'pong'),
  },
  {
    // Offline, so batched on the gateway's own thread: the getter must run where a deadline applies.
    name: 'returns a result with an endless getter',
    code: 'getter',
    query: '',
    status: 500,
    error: 'INTERNAL',
    message: /getter-forever/,
  },
  {
    name: 'allocates without bound',
    code: 'alloc',
    query: '',
    status: 500,
    error: 'INTERNAL',
    message: /alloc-forever/,
  },
  {
    name: 'fetches a host not on its list',
    code: 'forbidden',
    query: '',
    status: 502,
    error: 'UPSTREAM_FAILED',
    message: /^fetch-forbidden-host: the upstream request failed, please retry later$/,
    detail: /evil\.example\.org is not on the allow-list/,
  },
  {
    name: 'follows a redirect to 127.0.0.1',
    code: 'redirect_loopback',
    query: '',
    status: 502,
    error: 'UPSTREAM_FAILED',
    message: /the upstream request failed, please retry later$/,
    detail: /127\.0\.0\.1/,
    mock: () =>
      void nock('https://api.fixture.test').get('/redirect').reply(302, '', { Location: 'http://127.0.0.1/admin' }),
  },
  {
    name: 'waits on a slow upstream',
    code: 'slow',
    query: '',
    status: 504,
    error: 'UPSTREAM_TIMEOUT',
    message: /slow-upstream/,
    mock: () =>
      void nock('https://slow.fixture.test')
        .get('/slow')
        .reply(() => new Promise((r) => setTimeout(() => r([200, 'late']), 2000))),
  },
];

for (const c of cases) {
  t.test(`a plugin that ${c.name}: ${c.status} ${c.error}, charged 0, next call fine`, async (t) => {
    const u = await h.user('1');
    c.mock?.();
    const started = Date.now();
    const res = await h.client.get(`/api/${c.code}${c.query}`, { 'X-API-Key': u.key });
    t.ok(Date.now() - started < 10_000, 'answers within the deadline plus slack');
    t.equal(res.status, c.status);
    t.equal(res.body.error.code, c.error);
    t.match(res.body.error.message, c.message);
    if (c.detail) {
      t.notMatch(JSON.stringify(res.body), c.detail, "the sandbox's reason is not in the answer");
      const line = h.logs.find((l) => l.request_id === res.body.request_id && l.message === 'plugin failure');
      t.match(line?.reason, c.detail, "it is in the call's log line");
    }
    t.equal(res.body.deducted, 0);
    t.equal(res.body.remaining, 1);
    t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
    t.equal((await h.ledger(u.userId)).length, 1, 'only the grant row');
    const next = await h.client.get(`/api/${c.code}?mode=normal`, { 'X-API-Key': u.key });
    t.equal(next.status, 200, 'the next normal call on the same plugin succeeds');
    t.same(next.body.data, { normal: true });
    t.equal(next.body.deducted, 0.01);
  });
}
