// The sandbox facade against hostile plugins: every failure maps to its exact outcome within about the
// deadline, and the plugin keeps serving afterwards.

import nock from 'nock';
import t, { type Test } from 'tap';
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
  sb = await createSandbox({
    pluginDirs: [FIXTURES],
    logger,
    poolSize: 2,
    resolver: fakeResolver({
      'ten.cdn.fixture.test': ['10.0.0.5'],
      'meta.cdn.fixture.test': ['169.254.169.254'],
      'v6.cdn.fixture.test': ['2606:2800:220:1::1', '::1'],
      'mapped.cdn.fixture.test': ['::ffff:127.0.0.1'],
    }),
  });
});
t.teardown(() => sb.close());

async function timed<T>(p: Promise<T>): Promise<[T, number]> {
  const start = Date.now();
  const v = await p;
  return [v, Date.now() - start];
}

async function normalStillWorks(t: Test, plugin: string): Promise<void> {
  const { outcome } = await sb.run(req(plugin, { mode: 'normal' }));
  t.same(outcome, { ok: true, data: { normal: true } }, `${plugin}: the next normal call succeeds`);
}

t.test('discovers plugin folders, skipping folders without plugin.json', async (t) => {
  t.same(sb.names().sort(), [
    'alloc-forever',
    'bad-outcome',
    'echo',
    'fetch-forbidden-host',
    'getter-forever',
    'loop-after-fetch',
    'loop-forever',
    'redirect-to-loopback',
    'slow-upstream',
    'throws',
  ]);
  t.ok(sb.has('echo'));
  t.notOk(sb.has('_lib'));
  t.equal(sb.manifest('echo')?.timeout_ms, 5000);
  await t.rejects(sb.run(req('nope')), /unknown plugin nope/);
});

t.test('echo: input, options, operation, assets, now, digest, hardened globals', async (t) => {
  const before = Date.now();
  const { outcome, pluginMs } = await sb.run(
    req(
      'echo',
      { a: 1, nested: { b: [1, 2] }, assets: true, tryOptionsWrite: true },
      { options: { key: 'v', deep: { x: 1 } }, operation: 'echo-code' },
    ),
  );
  t.ok(pluginMs >= 0);
  if (!outcome.ok) throw t.fail(`echo failed: ${outcome.message}`);
  const d = outcome.data as Record<string, unknown>;
  t.same(d.input, { a: 1, nested: { b: [1, 2] }, assets: true, tryOptionsWrite: true });
  t.same(d.options, { key: 'v', deep: { x: 1 } });
  t.equal(d.operation, 'echo-code');
  t.ok(typeof d.now === 'number' && d.now >= before && d.now <= Date.now());
  t.equal(d.digest, 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  t.equal(d.md5, 'kAFQmDzST7DWlj99KOF/cg==');
  t.equal(d.greeting, 'hello asset');
  t.equal(d.hasExtra, false, 'optional option-driven asset absent');
  t.match(d.undeclared, /asset nope is not declared/);
  t.equal(d.optionsWrite, 'refused', 'options are frozen');
  t.same(d.globals, { WebAssembly: 'undefined', SharedArrayBuffer: 'undefined', plugin: 'undefined' });
});

t.test('echo: option-driven asset is read from the path in the options', async (t) => {
  const { outcome } = await sb.run(
    req('echo', { assets: true }, { options: { extra_file: `${FIXTURES}/echo/greeting.txt` } }),
  );
  t.match(outcome, { ok: true, data: { hasExtra: true, extra: 'hello asset' } });
});

t.test('plugin log lines carry plugin, operation and request_id and cannot spoof them', async (t) => {
  const r = req('echo', { x: 1 }, { operation: 'echo-logs' });
  await sb.run(r);
  const line = logger.lines.find((l) => l.message === 'echo called' && l.request_id === r.requestId);
  t.match(line, { level: 'info', plugin: 'echo', operation: 'echo-logs', request_id: r.requestId, keys: ['x'] });
});

t.test('fetch through the host: allow-list with wildcard, nock upstream', async (t) => {
  nock('https://api.fixture.test').get('/hello').matchHeader('x-test', '1').reply(200, 'hi there');
  nock('https://img.cdn.fixture.test').get('/a').reply(200, 'sub');
  const a = await sb.run(req('echo', { fetch: 'https://api.fixture.test/hello' }));
  t.match(a.outcome, {
    ok: true,
    data: { fetched: { status: 200, body: 'hi there', url: 'https://api.fixture.test/hello' } },
  });
  const b = await sb.run(req('echo', { fetch: 'https://img.cdn.fixture.test/a' }));
  t.match(b.outcome, { ok: true, data: { fetched: { body: 'sub' } } });
  const c = await sb.run(req('echo', { fetch: 'https://cdn.fixture.test/a' }));
  t.match(
    c.outcome,
    {
      ok: false,
      code: 'UPSTREAM_FAILED',
      message: 'echo: the upstream request failed, please retry later',
      detail: /not on the allow-list of plugin echo/,
    },
    '*.x does not match x',
  );
});

t.test('response size cap (echo allows 1024 bytes)', async (t) => {
  nock('https://api.fixture.test').get('/big').reply(200, 'x'.repeat(2000));
  const { outcome } = await sb.run(req('echo', { fetch: 'https://api.fixture.test/big' }));
  t.match(outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'echo: the upstream request failed, please retry later',
    detail: /over the cap of 1024/,
  });
});

t.test('DNS answers pointing at private, metadata or loopback addresses are refused', async (t) => {
  for (const [name, addr] of [
    ['ten', '10.0.0.5'],
    ['meta', '169.254.169.254'],
    ['v6', '::1'],
    ['mapped', '::ffff:127.0.0.1'],
  ]) {
    const { outcome } = await sb.run(req('echo', { fetch: `https://${name}.cdn.fixture.test/x` }));
    t.match(
      outcome,
      {
        ok: false,
        code: 'UPSTREAM_FAILED',
        message: 'echo: the upstream request failed, please retry later',
        detail: `resolves to private or reserved address ${addr}`,
      },
      name,
    );
  }
});

t.test('loop-forever: INTERNAL at the deadline, then the plugin works again', async (t) => {
  const [{ outcome }, ms] = await timed(sb.run(req('loop-forever')));
  t.same(outcome, { ok: false, code: 'INTERNAL', message: 'plugin loop-forever failed; quote the request id' });
  t.ok(ms >= 250 && ms < 3000, `finished in ${ms} ms (deadline 300)`);
  await normalStillWorks(t, 'loop-forever');
});

t.test('loop-after-fetch: the host deadline stops code isolated-vm cannot time out', async (t) => {
  nock('https://api.fixture.test').get('/ping').reply(200, 'pong');
  const r = req('loop-after-fetch', {}, { timeoutMs: 300 });
  const [{ outcome }, ms] = await timed(sb.run(r));
  t.match(outcome, { ok: false, code: 'INTERNAL', message: 'plugin loop-after-fetch failed; quote the request id' });
  t.ok(ms >= 250 && ms < 3000, `finished in ${ms} ms (deadline 300)`);
  const detail = logger.lines.find((l) => l.request_id === r.requestId && l.message === 'plugin call failed');
  t.match(detail, {
    plugin: 'loop-after-fetch',
    operation: 'loop-after-fetch-op',
    reason: /no fetch pending; isolate disposed/,
  });
  await normalStillWorks(t, 'loop-after-fetch');
});

t.test('alloc-forever: memory limit gives INTERNAL, then the plugin works again', async (t) => {
  const [{ outcome }, ms] = await timed(sb.run(req('alloc-forever')));
  t.match(outcome, { ok: false, code: 'INTERNAL', message: /plugin alloc-forever failed/ });
  t.ok(ms < 10_000, `sync OOM in ${ms} ms`);
  await normalStillWorks(t, 'alloc-forever');
  const [after] = await timed(sb.run(req('alloc-forever', { after: 'await' })));
  t.match(after.outcome, { ok: false, code: 'INTERNAL' }, 'OOM after an await');
  await normalStillWorks(t, 'alloc-forever');
});

t.test('fetch-forbidden-host: the escaped refusal is UPSTREAM_FAILED', async (t) => {
  const { outcome } = await sb.run(req('fetch-forbidden-host'));
  t.match(outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'fetch-forbidden-host: the upstream request failed, please retry later',
    detail: /fetch refused: host evil\.example\.org is not on the allow-list/,
  });
  const lit = await sb.run(req('fetch-forbidden-host', { url: 'http://169.254.169.254/latest/meta-data/' }));
  t.match(lit.outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'fetch-forbidden-host: the upstream request failed, please retry later',
    detail: /169\.254\.169\.254 is a private or reserved address/,
  });
  await normalStillWorks(t, 'fetch-forbidden-host');
});

t.test('redirect-to-loopback: the redirect hop is checked and refused', async (t) => {
  nock('https://api.fixture.test').get('/redirect').reply(302, '', { location: 'http://127.0.0.1/admin' });
  const { outcome } = await sb.run(req('redirect-to-loopback'));
  t.match(outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'redirect-to-loopback: the upstream request failed, please retry later',
    detail: /127\.0\.0\.1 is a private or reserved address/,
  });
  await normalStillWorks(t, 'redirect-to-loopback');
});

t.test('slow-upstream: UPSTREAM_TIMEOUT at the deadline; the isolate is kept', async (t) => {
  nock('https://slow.fixture.test').get('/slow').reply(replyAfter(5000, 'late'));
  const [{ outcome }, ms] = await timed(sb.run(req('slow-upstream')));
  t.same(outcome, {
    ok: false,
    code: 'UPSTREAM_TIMEOUT',
    message: 'slow-upstream: upstream did not answer within 300 ms',
  });
  t.ok(ms >= 250 && ms < 3000, `finished in ${ms} ms (deadline 300)`);
  nock('https://slow.fixture.test').get('/fast').reply(200, 'quick');
  const next = await sb.run(req('slow-upstream', { path: 'fast' }));
  t.match(next.outcome, { ok: true, data: { status: 200, body: 'quick' } }, 'the next call with a fetch succeeds');
  await normalStillWorks(t, 'slow-upstream');
  t.notOk(
    logger.lines.some((l) => l.message === 'isolate disposed' && l.plugin === 'slow-upstream'),
    'no isolate was disposed for an upstream timeout',
  );
});

t.test('effective deadline is the smaller of the request and the manifest', async (t) => {
  nock('https://slow.fixture.test').get('/slow').reply(replyAfter(5000, 'late'));
  const [{ outcome }, ms] = await timed(sb.run(req('slow-upstream', {}, { timeoutMs: 120 })));
  t.same(outcome, {
    ok: false,
    code: 'UPSTREAM_TIMEOUT',
    message: 'slow-upstream: upstream did not answer within 120 ms',
  });
  t.ok(ms < 2000);
});

t.test('throws: INTERNAL with no internals; the stack is logged', async (t) => {
  const r = req('throws');
  const { outcome } = await sb.run(r);
  t.same(outcome, { ok: false, code: 'INTERNAL', message: 'plugin throws failed; quote the request id' });
  const line = logger.lines.find((l) => l.request_id === r.requestId && l.message === 'plugin call failed');
  t.match(line, {
    level: 'error',
    plugin: 'throws',
    operation: 'throws-op',
    detail: /TypeError: Cannot read properties of undefined/,
  });
  t.match(line?.detail, /handler\.js/, 'the stack points into the readable bundle');
  await normalStillWorks(t, 'throws');
});

t.test('bad-outcome: malformed outcomes are INTERNAL', async (t) => {
  for (const kind of ['no-ok', 'bad-code', 'no-message', 'no-data', 'not-cloneable']) {
    const { outcome } = await sb.run(req('bad-outcome', { kind }));
    t.match(outcome, { ok: false, code: 'INTERNAL', message: 'plugin bad-outcome failed; quote the request id' }, kind);
  }
  await normalStillWorks(t, 'bad-outcome');
});

t.test('concurrency: 20 echo calls at once on a pool of 2', async (t) => {
  for (let i = 0; i < 20; i++)
    nock('https://api.fixture.test')
      .get(`/c/${i}`)
      .reply(replyAfter(30, `/c/${i}`));
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) => sb.run(req('echo', { i, fetch: `https://api.fixture.test/c/${i}` }))),
  );
  results.forEach((r, i) => {
    t.match(r.outcome, { ok: true, data: { input: { i }, fetched: { body: `/c/${i}` } } }, `call ${i}`);
  });
});
