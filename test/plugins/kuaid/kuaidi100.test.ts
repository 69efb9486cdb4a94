// Kuaidi100 real-time query and autonumber over nock: the signed form exactly as the protocol wants it,
// the state table, and every error return.

import nock from 'nock';
import t from 'tap';
import { readQueryAnswer } from '../../../plugins/kuaid/providers/kuaidi100.js';
import {
  capture,
  fixture,
  fixtureJson,
  formFields,
  K100,
  K100_OPTIONS,
  md5,
  NOW,
  runKuaid,
  type Seen,
  trackData,
} from './support.js';

nock.disableNetConnect();
t.afterEach(() => nock.cleanAll());

const HOST = 'https://poll.kuaidi100.com';

function replyQuery(status: number, body: string, seen: Seen[]): nock.Scope {
  return nock(HOST)
    .post('/poll/query.do')
    .reply(async (request) => {
      await capture(request, seen);
      return [status, body, { 'content-type': 'application/json;charset=UTF-8' }];
    });
}

t.test('signed form request, SF with phone, signed trail', async (t) => {
  const seen: Seen[] = [];
  replyQuery(200, fixture('k100-sf-signed.json'), seen);
  const out = await runKuaid({ no: 'sf 1385628716739', phone: '13812345678' }, K100_OPTIONS);
  const data = trackData(out);

  t.equal(seen.length, 1);
  const req = seen[0];
  t.match(String(req.headers['content-type']), /^application\/x-www-form-urlencoded/, 'form content type');
  const f = formFields(req.body);
  t.same(Object.keys(f), ['customer', 'sign', 'param'], 'exactly the documented fields');
  t.equal(f.customer, K100.customer);
  t.equal(f.sign, md5(f.param + K100.key + K100.customer).toUpperCase(), 'sign = MD5(param+key+customer), upper case');
  t.match(f.sign, /^[0-9A-F]{32}$/);
  t.same(JSON.parse(f.param), {
    com: 'shunfeng',
    num: 'SF1385628716739',
    phone: '13812345678',
    resultv2: '4',
    show: '0',
    order: 'desc',
  });
  t.equal(req.body, new URLSearchParams(f).toString(), 'body is canonical form encoding (the JSON is percent-encoded)');
  t.notMatch(req.body, /[{}"]/, 'no raw JSON on the wire');

  t.same(data, {
    no: 'SF1385628716739',
    com: 'shunfeng',
    company: '顺丰速运',
    company_en: 'SF Express',
    state: 'SIGNED',
    state_text: '已签收',
    finished: true,
    at_locker: false,
    updated_at: '2024-05-02T10:11:12+08:00',
    queried_at: '2024-06-10T12:00:00+08:00',
    traces: [
      { time: '2024-05-02T10:11:12+08:00', context: '[深圳市] 快件已签收，签收人：本人', location: '广东,深圳市' },
      { time: '2024-05-02T08:30:00+08:00', context: '[深圳市] 快件交给李师傅，正在派送途中', location: '广东,深圳市' },
      { time: '2024-05-01T21:03:44+08:00', context: '[东莞市] 快件已发车', location: '东莞市' },
      { time: '2024-05-01T18:00:05+08:00', context: '[东莞市] 顺丰速运 已收取快件', location: '广东,东莞市' },
    ],
    provider: 'kuaidi100',
  });
  t.equal(out.ok && out.cache_ttl, 7 * 86400, 'finished parcels are cached for a week');
});

t.test('state as a number, no phone for a courier without the check, 30 min cache', async (t) => {
  const seen: Seen[] = [];
  replyQuery(200, fixture('k100-zto-transit.json'), seen);
  const out = await runKuaid({ no: '73610555582883', phone: '5678' }, K100_OPTIONS);
  const data = trackData(out);
  t.equal(data.state, 'IN_TRANSIT');
  t.equal(data.finished, false);
  t.equal(out.ok && out.cache_ttl, 1800);
  t.equal(JSON.parse(formFields(seen[0].body).param).phone, '5678', 'last 4 digits are passed as given');

  seen.length = 0;
  replyQuery(200, fixture('k100-zto-transit.json').replace('"com": "zhongtong"', '"com": "yuantong"'), seen);
  await runKuaid({ no: 'YT8962646785389' }, K100_OPTIONS);
  t.notOk('phone' in JSON.parse(formFields(seen[0].body).param), 'no phone key when none was given');
});

t.test('phone required for SF and ZTO before anything is sent', async (t) => {
  for (const [no, name] of [
    ['SF1385628716739', 'SF Express'],
    ['73610555582883', 'ZTO Express'],
  ]) {
    const out = await runKuaid({ no }, K100_OPTIONS);
    t.match(out, {
      ok: false,
      code: 'INVALID_INPUT',
      message: new RegExp(
        `^${name} requires the phone number \\(or its last 4 digits\\) of the sender or receiver: pass phone=`,
      ),
    });
  }
  const pinned = await runKuaid({ no: '123456789012', com: 'shunfeng' }, K100_OPTIONS);
  t.match(pinned, {
    ok: false,
    code: 'INVALID_INPUT',
    message: /SF Express.*pass phone=/,
    message_zh: /^顺丰速运需要.*phone=/,
  });
  const amb = await runKuaid({ no: '123456789012' }, K100_OPTIONS);
  t.match(amb, {
    ok: false,
    code: 'INVALID_INPUT',
    message: /SF Express.*pass phone=.*also fits shentong, yuantong.*com=/,
    message_zh: /^顺丰速运需要.*该单号也可能属于 shentong、yuantong/,
  });
});

t.test('error returns', async (t) => {
  const FAILED = '快递数据提供方查询失败（kuaidi100 出错）';
  const cases: Array<{
    name: string;
    body: string;
    status?: number;
    code: string;
    message?: RegExp;
    /** The provider's own words: the operator's detail, never in the caller's message. */
    detail?: RegExp;
    zh: RegExp | string;
  }> = [
    {
      name: '500 no result yet = NOT_FOUND',
      body: fixture('k100-error-500.json'),
      code: 'NOT_FOUND',
      message: /^No tracking record yet for YT8962646785389 at YTO Express.*not charged\.$/,
      zh: '暂无物流轨迹：圆通速递 还没有单号 YT8962646785389 的记录，新单号通常在揽收后几小时内出现首条轨迹，请稍后再查（本次未扣费）。',
    },
    {
      name: 'empty trail = NOT_FOUND',
      body: fixture('k100-empty-trail.json'),
      code: 'NOT_FOUND',
      message: /No tracking record yet/,
      zh: /^暂无物流轨迹：圆通速递 还没有单号 YT8962646785389 的记录/,
    },
    {
      name: '400 courier not carried',
      body: '{"result":false,"returnCode":"400","message":"不支持此快递公司"}',
      code: 'UNSUPPORTED',
      message: /no configured parcel provider carries 圆通速递 \(yuantong\) \(kuaidi100 does not carry yuantong\)/,
      zh: '已配置的快递数据提供方都不支持圆通速递（yuantong）（kuaidi100 不支持 yuantong）；如果是其他快递公司，请传 com= 指定',
    },
    {
      name: '408 wrong phone',
      body: fixture('k100-error-408.json'),
      code: 'INVALID_INPUT',
      message:
        /^the phone number does not match this YTO Express parcel: pass the sender's or receiver's phone or its last 4 digits$/,
      detail: /验证码错误/,
      zh: '手机号与这件圆通速递快件不符：请传寄件人或收件人的手机号或手机号后 4 位',
    },
    {
      name: '400 company/quota',
      body: fixture('k100-error-400.json'),
      code: 'UPSTREAM_FAILED',
      detail: /kuaidi100 returnCode 400 找不到对应公司/,
      zh: FAILED,
    },
    {
      name: '501 server',
      body: '{"result":false,"returnCode":"501","message":"服务器错误"}',
      code: 'UPSTREAM_FAILED',
      detail: /returnCode 501/,
      zh: FAILED,
    },
    {
      name: '502 busy',
      body: '{"result":false,"returnCode":"502","message":"服务器繁忙"}',
      code: 'UPSTREAM_FAILED',
      detail: /returnCode 502/,
      zh: FAILED,
    },
    {
      name: '503 sign',
      body: '{"result":false,"returnCode":"503","message":"验证签名失败"}',
      code: 'UPSTREAM_FAILED',
      detail: /returnCode 503/,
      zh: FAILED,
    },
    {
      name: '601 key expired',
      body: '{"result":false,"returnCode":"601","message":"POLL:KEY已过期"}',
      code: 'UPSTREAM_FAILED',
      detail: /returnCode 601 POLL:KEY已过期/,
      zh: FAILED,
    },
    {
      name: 'HTTP 502',
      body: '<html>bad gateway</html>',
      status: 502,
      code: 'UPSTREAM_FAILED',
      detail: /HTTP 502/,
      zh: FAILED,
    },
    { name: 'HTML 200', body: '<html>captcha</html>', code: 'UPSTREAM_FAILED', detail: /not JSON/, zh: FAILED },
    {
      name: 'changed shape',
      body: '{"status":"301","data":null}',
      code: 'UPSTREAM_FAILED',
      detail: /unexpected shape/,
      zh: FAILED,
    },
  ];
  for (const c of cases) {
    replyQuery(c.status ?? 200, c.body, []);
    const out = await runKuaid({ no: 'YT8962646785389' }, K100_OPTIONS);
    const message = c.code === 'UPSTREAM_FAILED' ? 'parcel providers failed (kuaidi100 failed)' : c.message;
    t.match(
      out,
      { ok: false, code: c.code, message, message_zh: c.zh, ...(c.detail ? { detail: c.detail } : {}) },
      c.name,
    );
    if (!c.detail) t.equal(out.ok === false && out.detail, undefined, `${c.name}: no operator detail`);
  }
});

t.test('every Kuaidi100 state code maps (state and statusCode, string and number)', async (t) => {
  const table: Array<[string | number, string, boolean?]> = [
    [0, 'IN_TRANSIT'],
    ['1001', 'IN_TRANSIT'],
    ['1002', 'IN_TRANSIT'],
    ['1003', 'IN_TRANSIT'],
    [1, 'PICKED_UP'],
    ['101', 'PENDING'],
    ['102', 'PENDING'],
    ['103', 'PICKED_UP'],
    [2, 'EXCEPTION'],
    ['201', 'EXCEPTION'],
    ['202', 'EXCEPTION'],
    ['203', 'EXCEPTION'],
    ['204', 'EXCEPTION'],
    ['205', 'EXCEPTION', true],
    ['206', 'EXCEPTION'],
    ['207', 'EXCEPTION'],
    ['208', 'EXCEPTION'],
    ['209', 'EXCEPTION'],
    ['210', 'CANCELLED'],
    ['3', 'SIGNED'],
    ['301', 'SIGNED'],
    ['302', 'SIGNED'],
    ['303', 'SIGNED'],
    ['304', 'SIGNED', true],
    ['4', 'RETURNED'],
    ['401', 'CANCELLED'],
    ['5', 'DELIVERING'],
    ['501', 'DELIVERING', true],
    ['6', 'RETURNING'],
    ['7', 'TRANSFERRED'],
    ['8', 'CUSTOMS'],
    ['10', 'CUSTOMS'],
    ['11', 'CUSTOMS'],
    ['12', 'CUSTOMS'],
    ['13', 'EXCEPTION'],
    [14, 'REJECTED'],
    ['99', 'UNKNOWN'],
  ];
  const base = fixtureJson('k100-zto-transit.json');
  for (const [code, state, locker] of table) {
    // Extended codes may arrive in `state` itself ...
    const asState = readQueryAnswer(JSON.stringify({ ...base, state: code }));
    t.match(asState, { kind: 'found', track: { state, at_locker: !!locker } }, `state ${code} -> ${state}`);
  }
  // ... or as the newest trace's statusCode refining the top-level state.
  const refine = (state: string, statusCode: string) =>
    readQueryAnswer(
      JSON.stringify({ ...base, state, data: [{ ftime: '2024-06-10 09:00:00', context: 'x', statusCode }] }),
    );
  t.match(refine('5', '501'), { track: { state: 'DELIVERING', at_locker: true } }, '501 refines 5');
  t.match(
    refine('2', '203'),
    { track: { state: 'EXCEPTION' } },
    '203 (refused, waiting for the sender) is a problem, not final',
  );
  t.match(refine('4', '14'), { track: { state: 'REJECTED' } }, '14 拒签 under state 4 is a refusal, not a return');
  t.match(refine('4', '401'), { track: { state: 'CANCELLED' } }, '401 refines 4');
  t.match(refine('4', '3'), { track: { state: 'RETURNED' } }, 'a code of another parent leaves 4 alone');
  t.match(refine('8', '13'), { track: { state: 'EXCEPTION' } }, '13 refines 8');
  t.match(refine('0', '1001'), { track: { state: 'IN_TRANSIT' } }, '1001 refines 0');
  t.match(refine('5', '1002'), { track: { state: 'DELIVERING' } }, 'a sub-code of another parent does not override');
  t.match(
    readQueryAnswer(JSON.stringify({ ...base, state: 'x', ischeck: '1' })),
    { track: { state: 'SIGNED' } },
    'ischeck=1 rescues an unreadable state',
  );
});

t.test('autonumber: second opinion for ambiguous numbers, ignored when it fails', async (t) => {
  const seen: Seen[] = [];
  nock('https://www.kuaidi100.com')
    .get('/autonumber/auto')
    .query({ num: '434080499334709', key: K100.key })
    .reply(200, fixture('k100-autonumber-sto-first.json'));
  replyQuery(200, fixture('k100-zto-transit.json'), seen);
  const data = trackData(await runKuaid({ no: '434080499334709' }, { ...K100_OPTIONS, autonumber: true }));
  t.equal(JSON.parse(formFields(seen[0].body).param).com, 'shentong', 'autonumber ranked STO first');
  t.equal(data.com, 'shentong');
  t.same(
    data.candidates,
    [
      { com: 'shentong', company: '申通快递', company_en: 'STO Express', confidence: 0.9 },
      { com: 'yunda', company: '韵达快递', company_en: 'Yunda Express', confidence: 0.81 },
    ],
    'the courier autonumber names first is lifted to 0.9',
  );

  // Cached per number prefix (length + first 4): the next 15-digit 4340... number asks nobody but the query.
  seen.length = 0;
  replyQuery(200, fixture('k100-zto-transit.json'), seen);
  const cached = trackData(
    await runKuaid({ no: '434099988877766' }, { ...K100_OPTIONS, autonumber: true }, { keepMemo: true }),
  );
  t.equal(cached.com, 'shentong', 'the cached opinion still ranks STO first');
  t.equal(seen.length, 1);
  t.equal(nock.pendingMocks().length, 0, 'no second autonumber request');
  // ... and expires after a day.
  nock('https://www.kuaidi100.com')
    .get('/autonumber/auto')
    .query({ num: '434080499334709', key: K100.key })
    .reply(200, '[]');
  replyQuery(200, fixture('k100-zto-transit.json'), seen);
  const dayLater = trackData(
    await runKuaid(
      { no: '434080499334709' },
      { ...K100_OPTIONS, autonumber: true },
      { keepMemo: true, now: NOW + 86_400_001 },
    ),
  );
  t.equal(dayLater.com, 'yunda', 'an empty opinion leaves the rules alone');
  t.equal(nock.pendingMocks().length, 0);

  // Unknown format to the rules: autonumber's list is used as is.
  seen.length = 0;
  nock('https://www.kuaidi100.com')
    .get('/autonumber/auto')
    .query(true)
    .reply(200, '[{"comCode":"youzhengguoji","name":"邮政国际"}]');
  replyQuery(200, fixture('k100-zto-transit.json'), seen);
  const intl = trackData(await runKuaid({ no: '2123456789012345' }, { ...K100_OPTIONS, autonumber: 'true' }));
  t.equal(intl.com, 'youzhengguoji');
  t.equal(intl.company, '邮政国际');

  // Autonumber errors (601, not an array) leave the rules alone; nothing found -> INVALID_INPUT.
  nock('https://www.kuaidi100.com')
    .get('/autonumber/auto')
    .query(true)
    .reply(200, '{"returnCode":"601","message":"POLL:KEY已过期","result":false}');
  const out = await runKuaid({ no: '2123456789012345' }, { ...K100_OPTIONS, autonumber: true });
  t.match(out, { ok: false, code: 'INVALID_INPUT', message: /matches no known courier format/ });
  t.match(out.host.logs, [{ level: 'warn', message: /autonumber gave no list/ }]);

  // Certain detection never asks.
  replyQuery(200, fixture('k100-zto-transit.json'), []);
  trackData(await runKuaid({ no: 'YT8962646785389' }, { ...K100_OPTIONS, autonumber: true }));
  t.equal(nock.pendingMocks().length, 0, 'only the query was sent');
});
