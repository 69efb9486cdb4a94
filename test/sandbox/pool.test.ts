// Pool behaviour on one isolate: innocent calls survive a disposal, a call that swallows its deadline's abort
// is caught, and calls beyond the per-isolate cap queue (and give up at their deadline).

import nock from 'nock';
import t from 'tap';
import { createMemoryLogger } from '../../core/kernel/logger.js';
import { createSandbox, type Sandbox } from '../../core/sandbox/sandbox.js';
import { FIXTURES, fakeResolver, replyAfter, req } from './helpers.js';

nock.disableNetConnect();
t.teardown(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

const logger = createMemoryLogger();
let sb: Sandbox;
t.before(async () => {
  sb = await createSandbox({ pluginDirs: [FIXTURES], logger, poolSize: 1, maxPerIsolate: 2, resolver: fakeResolver() });
});
t.teardown(() => sb.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('an innocent call on an isolate disposed for another call is re-run and succeeds', async (t) => {
  // Two interceptors: the innocent's first fetch is aborted with its isolate, the re-run fetches again.
  nock('https://api.fixture.test').get('/innocent').times(2).reply(replyAfter(600, 'worth the wait'));
  nock('https://api.fixture.test').get('/ping').reply(200, 'pong');
  const innocentReq = req('loop-after-fetch', { mode: 'wait', path: 'innocent' }, { timeoutMs: 5000 });
  const innocent = sb.run(innocentReq);
  await sleep(50);
  const culprit = await sb.run(req('loop-after-fetch', {}, { timeoutMs: 300 }));
  t.match(culprit.outcome, { ok: false, code: 'INTERNAL' }, 'the looping call is INTERNAL');
  const { outcome } = await innocent;
  t.same(outcome, { ok: true, data: { innocent: true, body: 'worth the wait' } }, 'the innocent call succeeds');
  t.ok(
    logger.lines.some(
      (l) => l.request_id === innocentReq.requestId && l.message === 're-running a call whose isolate was disposed',
    ),
    'the re-run is logged',
  );
});

t.test(
  'a call that swallows the aborted fetch and loops is answered at the deadline; its isolate is replaced',
  async (t) => {
    nock('https://api.fixture.test').get('/hang').reply(replyAfter(10_000, 'never'));
    const started = Date.now();
    const { outcome } = await sb.run(req('loop-after-fetch', { mode: 'catch-loop', path: 'hang' }, { timeoutMs: 300 }));
    t.same(outcome, {
      ok: false,
      code: 'UPSTREAM_TIMEOUT',
      message: 'loop-after-fetch: upstream did not answer within 300 ms',
    });
    t.ok(Date.now() - started < 3000);
    const disposed = () =>
      logger.lines.some(
        (l) =>
          l.message === 'isolate disposed' &&
          l.plugin === 'loop-after-fetch' &&
          /after its deadline/.test(String(l.reason)),
      );
    for (let i = 0; i < 50 && !disposed(); i++) await sleep(100);
    t.ok(disposed(), 'the stuck isolate was disposed after the grace period');
    const next = await sb.run(req('loop-after-fetch', { mode: 'normal' }));
    t.same(next.outcome, { ok: true, data: { normal: true } });
  },
);

t.test('calls beyond the per-isolate cap queue and all succeed', async (t) => {
  for (let i = 0; i < 8; i++)
    nock('https://api.fixture.test')
      .get(`/q/${i}`)
      .reply(replyAfter(50, `q${i}`));
  const results = await Promise.all(
    Array.from({ length: 8 }, (_, i) => sb.run(req('echo', { i, fetch: `https://api.fixture.test/q/${i}` }))),
  );
  results.forEach((r, i) => {
    t.match(r.outcome, { ok: true, data: { fetched: { body: `q${i}` } } }, `call ${i}`);
  });
});

t.test('a queued call whose deadline passes before an isolate frees up is UNAVAILABLE', async (t) => {
  nock('https://api.fixture.test').get('/busy').times(2).reply(replyAfter(800, 'busy'));
  const busy = [0, 1].map(() => sb.run(req('echo', { fetch: 'https://api.fixture.test/busy' })));
  await sleep(20);
  const started = Date.now();
  const { outcome } = await sb.run(req('echo', {}, { timeoutMs: 200 }));
  t.same(outcome, { ok: false, code: 'UNAVAILABLE', message: 'echo: too busy, try again' });
  t.ok(Date.now() - started < 2000);
  for (const r of await Promise.all(busy)) t.match(r.outcome, { ok: true });
});
