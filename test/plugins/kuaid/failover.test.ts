// Provider choice and failover, guesses for ambiguous numbers, timeouts, and the unconfigured operation.

import nock from 'nock';
import t from 'tap';
import { plugin } from '../../../plugins/kuaid/handler.js';
import { createDirectHost } from '../../helpers/direct-host.js';
import {
  BOTH_OPTIONS,
  capture,
  fixture,
  formFields,
  K100,
  K100_OPTIONS,
  KDN,
  NOW,
  runKuaid,
  type Seen,
  trackData,
} from './support.js';

nock.disableNetConnect();
t.afterEach(() => nock.cleanAll());

const k100 = () => nock('https://poll.kuaidi100.com').post('/poll/query.do');
const kdn = () => nock('https://api.kdniao.com').post('/Ebusiness/EbusinessOrderHandle.aspx');

t.test('a failing first provider hands over to the next', async (t) => {
  const failures: Array<[string, (i: nock.Interceptor) => nock.Scope]> = [
    ['busy returnCode 502', (i) => i.reply(200, '{"result":false,"returnCode":"502","message":"服务器繁忙"}')],
    ['HTTP 503', (i) => i.reply(503, 'Service Unavailable')],
    ['network error', (i) => i.replyWithError('socket hang up')],
    ['quota returnCode 400', (i) => i.reply(200, fixture('k100-error-400.json'))],
  ];
  for (const [name, fail] of failures) {
    fail(k100());
    kdn().reply(200, fixture('kdn-yto-oldest-first.json'));
    const out = await runKuaid({ no: 'YT8962646785389' }, BOTH_OPTIONS);
    const data = trackData(out);
    t.equal(data.provider, 'kdniao', `${name}: answered by kdniao`);
    t.equal(data.state, 'SIGNED');
    t.match(
      out.host.logs,
      [{ level: 'warn', message: /trying the next one/, fields: { provider: 'kuaidi100' } }],
      `${name}: logged`,
    );
    t.equal(nock.pendingMocks().length, 0);
  }
});

t.test('no record yet: NOT_FOUND (free), the next provider is not asked', async (t) => {
  k100().reply(200, fixture('k100-error-500.json'));
  const second = kdn().reply(200, fixture('kdn-yto-oldest-first.json'));
  const out = await runKuaid({ no: 'YT8962646785389' }, BOTH_OPTIONS);
  t.same(out, {
    ok: false,
    code: 'NOT_FOUND',
    message:
      'No tracking record yet for YT8962646785389 at YTO Express: new parcels usually get their first scan within hours of pickup. Try again later; this call was not charged.',
    message_zh:
      '暂无物流轨迹：圆通速递 还没有单号 YT8962646785389 的记录，新单号通常在揽收后几小时内出现首条轨迹，请稍后再查（本次未扣费）。',
    host: out.host,
  });
  t.notOk(second.isDone(), 'kdniao untouched');
});

t.test('no record yet is remembered for 60 s per number: retries cost no upstream query', async (t) => {
  const seen: Seen[] = [];
  k100().reply(async (req) => (await capture(req, seen), [200, fixture('k100-error-500.json')]));
  const first = await runKuaid({ no: 'YT8962646785389' }, K100_OPTIONS);
  t.match(first, { ok: false, code: 'NOT_FOUND' });
  t.equal(seen.length, 1);

  // Within the minute: the same answer, no request (nock would fail on an unexpected one).
  const again = await runKuaid({ no: 'YT8962646785389' }, K100_OPTIONS, { keepMemo: true, now: NOW + 59_000 });
  t.same(
    { ok: again.ok, code: !again.ok && again.code, message: !again.ok && again.message },
    { ok: false, code: 'NOT_FOUND', message: !first.ok && first.message },
  );
  t.equal(seen.length, 1, 'answered from the short cache');

  // Another number, another phone or another operation is not covered by it.
  k100().reply(async (req) => (await capture(req, seen), [200, fixture('k100-error-500.json')]));
  await runKuaid({ no: 'YT8962646785380' }, K100_OPTIONS, { keepMemo: true, now: NOW + 1000 });
  t.equal(seen.length, 2, 'a different number is asked');

  // After the minute the provider is asked again, and a trail that appeared meanwhile is answered.
  k100().reply(async (req) => (await capture(req, seen), [200, fixture('k100-zto-transit.json')]));
  const later = trackData(
    await runKuaid({ no: 'YT8962646785389' }, K100_OPTIONS, { keepMemo: true, now: NOW + 61_000 }),
  );
  t.equal(seen.length, 3);
  t.equal(later.state, 'IN_TRANSIT');
});

t.test("wrong phone is the caller's to fix: no failover", async (t) => {
  k100().reply(200, fixture('k100-error-408.json'));
  const second = kdn().reply(200, fixture('kdn-yto-oldest-first.json'));
  const out = await runKuaid({ no: 'SF1385628716739', phone: '0000' }, BOTH_OPTIONS);
  t.match(out, {
    ok: false,
    code: 'INVALID_INPUT',
    message: /phone number does not match this SF Express parcel/,
    detail: /./,
    message_zh: '手机号与这件顺丰速运快件不符：请传寄件人或收件人的手机号或手机号后 4 位',
  });
  t.notOk(second.isDone());
});

t.test('every provider down: UPSTREAM_FAILED names each', async (t) => {
  k100().reply(200, '{"result":false,"returnCode":"501","message":"服务器错误"}');
  kdn().reply(502, 'Bad Gateway');
  const out = await runKuaid({ no: 'YT8962646785389' }, BOTH_OPTIONS);
  t.match(out, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'parcel providers failed (kuaidi100 failed; kdniao failed)',
    detail: /^kuaidi100: kuaidi100 returnCode 501.*; kdniao: kdniao answered HTTP 502$/,
    message_zh: '快递数据提供方查询失败（kuaidi100 出错；kdniao 出错）',
  });
});

t.test('slow providers: failover, UPSTREAM_TIMEOUT when all are slow', async (t) => {
  const K100_HOST = 'poll.kuaidi100.com';
  const KDN_HOST = 'api.kdniao.com';
  kdn().reply(200, fixture('kdn-yto-oldest-first.json'));
  const data = trackData(await runKuaid({ no: 'YT8962646785389' }, BOTH_OPTIONS, { slowHosts: [K100_HOST] }));
  t.equal(data.provider, 'kdniao', 'kuaidi100 timed out, kdniao answered');

  const out = await runKuaid({ no: 'YT8962646785389' }, BOTH_OPTIONS, { slowHosts: [K100_HOST, KDN_HOST] });
  t.match(out, {
    ok: false,
    code: 'UPSTREAM_TIMEOUT',
    message: 'parcel providers did not answer in time (kuaidi100 timed out; kdniao timed out)',
    detail: 'kuaidi100: kuaidi100 timed out; kdniao: kdniao timed out',
    message_zh: '快递数据提供方未及时响应（kuaidi100 超时；kdniao 超时）',
  });

  kdn().reply(500, 'oops');
  const mixed = await runKuaid({ no: 'YT8962646785389' }, BOTH_OPTIONS, { slowHosts: [K100_HOST] });
  t.match(
    mixed,
    {
      ok: false,
      code: 'UPSTREAM_FAILED',
      message: 'parcel providers failed (kuaidi100 timed out; kdniao failed)',
      detail: /^kuaidi100: kuaidi100 timed out; kdniao: kdniao answered HTTP 500$/,
      message_zh: '快递数据提供方查询失败（kuaidi100 超时；kdniao 出错）',
    },
    'one slow, one broken: failed',
  );
});

t.test('each request carries the per-request timeout', async (t) => {
  const seen: Array<number | undefined> = [];
  const h = createDirectHost({ plugin: 'kuaid', options: { ...BOTH_OPTIONS, request_timeout_ms: 1234 } });
  const real = h.fetch;
  h.fetch = (url, init) => (seen.push(init?.timeout_ms), real(url, init));
  k100().reply(200, '{"result":false,"returnCode":"502"}');
  kdn().reply(200, fixture('kdn-state-number.json'));
  await plugin.run({ no: '773277027280336' }, h);
  h.dispose();
  t.same(seen, [1234, 1234]);
});

t.test('ambiguous numbers: up to two guesses per provider', async (t) => {
  const seen: Seen[] = [];
  const reply = (body: string) => k100().reply(async (req) => (await capture(req, seen), [200, body]));
  reply(fixture('k100-error-500.json'));
  reply(fixture('k100-zto-transit.json'));
  const data = trackData(await runKuaid({ no: '434080499334709' }, K100_OPTIONS));
  t.same(
    seen.map((s) => JSON.parse(formFields(s.body).param).com),
    ['yunda', 'shentong'],
    'Yunda first, then STO',
  );
  t.equal(data.com, 'shentong');
  t.same(data.candidates, [
    { com: 'yunda', company: '韵达快递', company_en: 'Yunda Express', confidence: 0.81 },
    { com: 'shentong', company: '申通快递', company_en: 'STO Express', confidence: 0.19 },
  ]);

  // 12 digits with a phone: two guesses, then the top guess's "no record" stands, naming the others.
  seen.length = 0;
  reply(fixture('k100-error-500.json'));
  reply(fixture('k100-error-500.json'));
  const third = k100().reply(200, fixture('k100-zto-transit.json'));
  const none = await runKuaid({ no: '123456789012', phone: '5678' }, K100_OPTIONS);
  t.same(
    seen.map((s) => JSON.parse(formFields(s.body).param).com),
    ['shunfeng', 'shentong'],
  );
  t.notOk(third.isDone(), 'no third guess');
  t.match(none, {
    ok: false,
    code: 'NOT_FOUND',
    message: /at SF Express.*If the courier is not shunfeng, pass com= \(it may be shentong, yuantong\)/,
  });

  // A certain number gets one query only.
  nock.cleanAll();
  seen.length = 0;
  reply(fixture('k100-error-500.json'));
  const extra = k100().reply(200, fixture('k100-zto-transit.json'));
  const one = await runKuaid({ no: 'YT8962646785389' }, K100_OPTIONS);
  t.equal(seen.length, 1);
  t.notOk(extra.isDone());
  t.match(one, { ok: false, code: 'NOT_FOUND' });
  t.notMatch(one, { message: /pass com=/ }, 'no rivals to name when detection was certain');
});

t.test('guesses that need a phone are skipped without one', async (t) => {
  const seen: Seen[] = [];
  nock('https://www.kuaidi100.com')
    .get('/autonumber/auto')
    .query(true)
    .reply(200, '[{"comCode":"zhongtong","name":"中通快递"}]');
  k100()
    .times(2)
    .reply(async (req) => (await capture(req, seen), [200, fixture('k100-error-500.json')]));
  const out = await runKuaid({ no: '434080499334709' }, { ...K100_OPTIONS, autonumber: true });
  t.same(
    seen.map((s) => JSON.parse(formFields(s.body).param).com),
    ['yunda', 'shentong'],
    'ZTO (needs phone) skipped',
  );
  t.match(
    out,
    {
      ok: false,
      code: 'NOT_FOUND',
      message: /Yunda Express.*it may be zhongtong, shentong/,
      message_zh: /^暂无物流轨迹：韵达快递.*可能是 zhongtong、shentong/,
    },
    'the rival couriers are named',
  );
});

t.test('provider order comes from options', async (t) => {
  const first = kdn().reply(200, fixture('kdn-state-number.json'));
  const second = k100().reply(200, fixture('k100-zto-transit.json'));
  const data = trackData(
    await runKuaid({ no: '73610555582883', phone: '5678' }, { ...BOTH_OPTIONS, providers: 'kdniao, kuaidi100' }),
  );
  t.equal(data.provider, 'kdniao');
  t.ok(first.isDone());
  t.notOk(second.isDone());
});

t.test('unconfigured: UNAVAILABLE with a customer message; the variables to set go to the log only', async (t) => {
  const none = await runKuaid({ no: 'YT8962646785389' }, {});
  t.same(none, {
    ok: false,
    code: 'UNAVAILABLE',
    message: 'Parcel tracking is not available on this server yet; nothing was charged.',
    message_zh: '本服务器暂未开通快递查询；本次未扣费。',
    host: none.host,
  });
  t.notMatch(
    JSON.stringify(none.ok ? null : [none.message, none.message_zh]),
    /KUAIDI|KDNIAO|set /,
    'no environment variable reaches the caller',
  );
  t.match(none.host.logs, [
    {
      level: 'warn',
      message: 'kuaid is not configured',
      fields: {
        fix: 'parcel tracking is not configured: set KUAIDI100_CUSTOMER and KUAIDI100_KEY (kuaidi100), or KDNIAO_BUSINESS_ID and KDNIAO_API_KEY (kdniao)',
      },
    },
  ]);
  const partial = await runKuaid(
    { no: 'YT8962646785389' },
    {
      kuaidi100_customer: K100.customer,
      kuaidi100_key: '',
      kdniao_business_id: '${KDNIAO_BUSINESS_ID}',
      kdniao_api_key: KDN.apiKey,
    },
  );
  t.match(partial, { ok: false, code: 'UNAVAILABLE' });
  t.match(
    partial.host.logs,
    [{ fields: { fix: /set KUAIDI100_KEY \(kuaidi100\), or KDNIAO_BUSINESS_ID \(kdniao\)$/ } }],
    'only what is missing; ${VAR} left over counts as missing',
  );
  const kdnOnly = await runKuaid(
    { no: 'YT8962646785389' },
    { providers: ['kdniao'], kuaidi100_customer: K100.customer, kuaidi100_key: K100.key },
  );
  t.match(
    kdnOnly.host.logs,
    [{ fields: { fix: /set KDNIAO_BUSINESS_ID and KDNIAO_API_KEY \(kdniao\)$/ } }],
    'only the listed providers count',
  );
  const unknown = await runKuaid({ no: 'YT8962646785389' }, { providers: ['aliyun'] });
  t.match(unknown, { ok: false, code: 'UNAVAILABLE' });
  t.match(unknown.host.logs, [
    { level: 'warn', fields: { ignored: ['providers: aliyun'] } },
    { fields: { fix: /names no known provider/ } },
  ]);
  const bad = await runKuaid({ no: '#' }, {});
  t.match(bad, { code: 'UNAVAILABLE' }, 'configuration is checked before input');
});

t.test('input errors', async (t) => {
  t.match(await runKuaid({ no: '2123456789012345' }, K100_OPTIONS), {
    code: 'INVALID_INPUT',
    message: /16 digits.*matches no known courier format/,
    message_zh: /^快递单号 2123456789012345（16 位数字）不符合任何已知快递公司的单号格式/,
  });
  t.match(await runKuaid({ no: 'YT8962646785389', phone: 'abc' }, K100_OPTIONS), {
    code: 'INVALID_INPUT',
    message: 'phone must be the full number or its last 4 digits',
    message_zh: 'phone 须为完整手机号或手机号后 4 位',
  });
  t.match(await runKuaid({ no: 'YT8962646785389', com: 'Bad Code' }, K100_OPTIONS), {
    code: 'INVALID_INPUT',
    message: 'com "bad code" must be a courier code such as shunfeng or zhongtong',
    message_zh: 'com "bad code" 必须是快递公司编码，如 shunfeng、zhongtong',
  });
  t.match(await runKuaid({ no: 42 } as unknown as { no: string }, K100_OPTIONS), {
    code: 'INVALID_INPUT',
    message: 'no (the tracking number) is required',
    message_zh: '缺少 no（快递单号）',
  });
});

t.test('a provider without the courier hands over; all without it is UNSUPPORTED (422), not a failure', async (t) => {
  const unsupported = '{"result":false,"returnCode":"400","message":"不支持此快递公司"}';
  k100().reply(200, unsupported);
  kdn().reply(200, fixture('kdn-yto-oldest-first.json'));
  const data = trackData(await runKuaid({ no: 'YT8962646785389' }, BOTH_OPTIONS));
  t.equal(data.provider, 'kdniao', 'kdniao answered what kuaidi100 does not carry');

  k100().reply(200, unsupported);
  const out = await runKuaid({ no: 'YT8962646785389', com: 'nosuchcourier' }, K100_OPTIONS);
  t.same({ ok: out.ok, code: !out.ok && out.code }, { ok: false, code: 'UNSUPPORTED' });
  t.match(out, {
    message:
      'no configured parcel provider carries nosuchcourier (nosuchcourier) (kuaidi100 does not carry nosuchcourier); pass com= if the courier is another one',
    message_zh:
      '已配置的快递数据提供方都不支持nosuchcourier（nosuchcourier）（kuaidi100 不支持 nosuchcourier）；如果是其他快递公司，请传 com= 指定',
  });
  t.equal(nock.pendingMocks().length, 0);
});

t.test('com skips detection and passes unknown Kuaidi100 codes through', async (t) => {
  const seen: Seen[] = [];
  k100().reply(async (req) => (await capture(req, seen), [200, fixture('k100-zto-transit.json')]));
  const data = trackData(await runKuaid({ no: '2123456789012345', com: 'zhongtongguoji' }, K100_OPTIONS));
  t.equal(JSON.parse(formFields(seen[0].body).param).com, 'zhongtongguoji');
  t.equal(data.com, 'zhongtongguoji');
  t.equal(data.company, 'zhongtongguoji');
});

t.test("a canary's probe pinned to one provider asks only it: no failover, no other provider", async (t) => {
  // Pinned to the second provider: the first is not asked though it comes first.
  const first = k100().reply(200, fixture('k100-sf-signed.json'));
  kdn().reply(200, fixture('kdn-yto-oldest-first.json'));
  const second = await runKuaid({ no: 'YT8962646785389' }, BOTH_OPTIONS, { pin: 'kdniao' });
  t.equal(trackData(second).provider, 'kdniao');
  t.notOk(first.isDone(), 'kuaidi100 was not asked');
  nock.cleanAll();

  // Pinned to a failing provider: its failure is the answer, the working one is not asked.
  k100().reply(200, '{"result":false,"returnCode":"601","message":"key已过期"}');
  const spare = kdn().reply(200, fixture('kdn-yto-oldest-first.json'));
  const broken = await runKuaid({ no: 'YT8962646785389' }, BOTH_OPTIONS, { pin: 'kuaidi100' });
  t.match(broken, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'parcel providers failed (kuaidi100 failed)',
    detail: 'kuaidi100: kuaidi100 returnCode 601 key已过期',
    message_zh: '快递数据提供方查询失败（kuaidi100 出错）',
  });
  t.notOk(spare.isDone(), 'kdniao was not asked');
  nock.cleanAll();

  // Pinned to a provider without credentials (or one the plugin does not know): unavailable, nothing asked.
  for (const pin of ['kdniao', 'nosuch']) {
    const out = await runKuaid({ no: 'YT8962646785389' }, K100_OPTIONS, { pin });
    t.same(
      { ok: out.ok, code: !out.ok && out.code, message: !out.ok && out.message, zh: !out.ok && out.message_zh },
      {
        ok: false,
        code: 'UNAVAILABLE',
        message: `parcel provider ${pin} is not configured`,
        zh: `快递数据提供方 ${pin} 未配置`,
      },
    );
  }
});
