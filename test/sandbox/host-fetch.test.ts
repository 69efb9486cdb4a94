// host.fetch on its own: allow-list and address checks on every redirect hop, size cap, abort, proxies aside.

import { Readable } from 'node:stream';
import nock from 'nock';
import t, { type Test } from 'tap';
import { type FetchPolicy, HostFetchError, hostFetch } from '../../core/sandbox/host-fetch.js';
import { fakeResolver, replyAfter } from './helpers.js';

nock.disableNetConnect();
t.teardown(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

function policy(extra: Partial<FetchPolicy> = {}): FetchPolicy & { pending: number[] } {
  const pending: number[] = [];
  return {
    plugin: 'unit',
    allowHosts: ['api.test.example', '*.cdn.test.example'],
    maxResponseBytes: 100,
    resolver: fakeResolver({
      'private.cdn.test.example': ['10.1.2.3'],
      'both.cdn.test.example': ['93.184.216.34', '127.0.0.1'],
    }),
    signal: new AbortController().signal,
    onPending: (d) => void pending.push(d),
    pending,
    ...extra,
  };
}

async function refusal(t: Test, p: Promise<unknown>, kind: HostFetchError['kind'], re: RegExp): Promise<void> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  t.ok(err instanceof HostFetchError, 'a HostFetchError');
  t.match(err, { kind, message: re });
}

t.test('a plain GET: status, headers, cookies, body, pending balance', async (t) => {
  nock('https://api.test.example')
    .post('/q', 'a=1')
    .matchHeader('x-k', 'v')
    .reply(201, 'created', ['X-Thing', 'yes', 'Set-Cookie', 'a=1; Path=/', 'Set-Cookie', 'b=2']);
  const p = policy();
  const res = await hostFetch(
    'https://api.test.example/q',
    { method: 'post', headers: { 'x-k': 'v' }, body: 'a=1' },
    p,
  );
  t.match(res, {
    status: 201,
    body: 'created',
    url: 'https://api.test.example/q',
    redirects: [],
    headers: { 'x-thing': 'yes' },
  });
  t.same(res.set_cookies, ['a=1; Path=/', 'b=2']);
  t.same(p.pending, [1, -1], 'pending count goes up and back down');
});

t.test('redirects are followed and every hop is re-checked', async (t) => {
  nock('https://api.test.example').get('/r1').reply(302, '', { location: 'https://img.cdn.test.example/r2' });
  nock('https://img.cdn.test.example').get('/r2').reply(200, 'landed');
  const res = await hostFetch('https://api.test.example/r1', undefined, policy());
  t.match(res, {
    status: 200,
    body: 'landed',
    url: 'https://img.cdn.test.example/r2',
    redirects: ['https://api.test.example/r1'],
  });

  nock('https://api.test.example').get('/out').reply(301, '', { location: 'https://elsewhere.example.org/' });
  await refusal(
    t,
    hostFetch('https://api.test.example/out', undefined, policy()),
    'refused',
    /elsewhere\.example\.org is not on the allow-list/,
  );

  nock('https://api.test.example').get('/in').reply(302, '', { location: 'https://private.cdn.test.example/' });
  await refusal(
    t,
    hostFetch('https://api.test.example/in', undefined, policy()),
    'refused',
    /resolves to private or reserved address 10\.1\.2\.3/,
  );

  nock('https://api.test.example').get('/lo').reply(307, '', { location: 'http://[::1]:8080/' });
  await refusal(
    t,
    hostFetch('https://api.test.example/lo', undefined, policy()),
    'refused',
    /::1 is a private or reserved address/,
  );

  nock('https://api.test.example').get('/manual').reply(302, '', { location: 'http://127.0.0.1/' });
  const manual = await hostFetch('https://api.test.example/manual', { redirect: 'manual' }, policy());
  t.match(manual, { status: 302, headers: { location: 'http://127.0.0.1/' } }, 'manual mode returns the 3xx as is');
});

t.test('303 and POST redirects become GET without a body', async (t) => {
  nock('https://api.test.example').post('/form').reply(303, '', { location: '/done' });
  nock('https://api.test.example').get('/done').reply(200, 'ok');
  const res = await hostFetch('https://api.test.example/form', { method: 'POST', body: 'x' }, policy());
  t.equal(res.body, 'ok');
});

t.test('too many redirects fail', async (t) => {
  nock('https://api.test.example').get('/loop').times(20).reply(302, '', { location: '/loop' });
  await refusal(t, hostFetch('https://api.test.example/loop', undefined, policy()), 'failed', /more than 8 redirects/);
});

t.test('one private address among the answers is enough to refuse', async (t) => {
  await refusal(t, hostFetch('https://both.cdn.test.example/', undefined, policy()), 'refused', /127\.0\.0\.1/);
});

t.test('bad URLs, schemes, credentials and literal addresses are refused', async (t) => {
  await refusal(t, hostFetch('not a url', undefined, policy()), 'refused', /not a valid URL/);
  await refusal(t, hostFetch('file:///etc/passwd', undefined, policy()), 'refused', /scheme file: is not allowed/);
  await refusal(t, hostFetch('https://u:p@api.test.example/', undefined, policy()), 'refused', /credentials/);
  await refusal(t, hostFetch('http://169.254.169.254/latest/', undefined, policy()), 'refused', /private or reserved/);
  await refusal(t, hostFetch('http://93.184.216.34/', undefined, policy()), 'refused', /not on the allow-list/);
});

t.test('DNS and network failures are "failed"', async (t) => {
  const broken = policy({
    resolver: async () => {
      throw new Error('ENOTFOUND');
    },
  });
  await refusal(
    t,
    hostFetch('https://api.test.example/', undefined, broken),
    'failed',
    /cannot resolve api\.test\.example: ENOTFOUND/,
  );
  await refusal(
    t,
    hostFetch('https://api.test.example/', undefined, policy({ resolver: async () => [] })),
    'failed',
    /no addresses/,
  );
  nock('https://api.test.example').get('/net').replyWithError('socket hang up');
  await refusal(t, hostFetch('https://api.test.example/net', undefined, policy()), 'failed', /api\.test\.example/);
});

t.test('response size cap: declared and streamed', async (t) => {
  nock('https://api.test.example').get('/declared').reply(200, 'x'.repeat(101), { 'content-length': '101' });
  await refusal(
    t,
    hostFetch('https://api.test.example/declared', undefined, policy()),
    'refused',
    /101 bytes is over the cap of 100/,
  );
  nock('https://api.test.example').get('/exact').reply(200, 'y'.repeat(100));
  t.equal(
    (await hostFetch('https://api.test.example/exact', undefined, policy())).body.length,
    100,
    'exactly the cap is fine',
  );
  nock('https://api.test.example')
    .get('/streamed')
    .reply(200, () => {
      // No content-length: the cap must hold while streaming.
      return Readable.from(['a'.repeat(60), 'b'.repeat(60)]);
    });
  await refusal(
    t,
    hostFetch('https://api.test.example/streamed', undefined, policy()),
    'refused',
    /over the cap of 100 bytes/,
  );
});

t.test('abort (the call deadline) and per-request timeout_ms are "timeout"', async (t) => {
  nock('https://api.test.example').get('/slow').reply(replyAfter(5000, 'late'));
  const c = new AbortController();
  setTimeout(() => c.abort(), 100);
  const p = policy({ signal: c.signal });
  const started = Date.now();
  await refusal(t, hostFetch('https://api.test.example/slow', undefined, p), 'timeout', /did not answer in time/);
  t.ok(Date.now() - started < 2000);
  t.same(p.pending, [1, -1]);
  nock('https://api.test.example').get('/slow2').reply(replyAfter(5000, 'late'));
  // AbortSignal.timeout's timer is unref'd and so is the fake upstream's: hold the loop open meanwhile.
  const hold = setTimeout(() => undefined, 2000);
  t.teardown(() => clearTimeout(hold));
  await refusal(
    t,
    hostFetch('https://api.test.example/slow2', { timeout_ms: 100 }, policy()),
    'timeout',
    /did not answer in time/,
  );
});
