// Kdniao instant query over nock: the DataSign and form exactly as the demos build them, the state table,
// the trail order, slash dates and every failure shape.

import nock from 'nock';
import t from 'tap';
import { readKdniaoAnswer } from '../../../plugins/kuaid/providers/kdniao.js';
import {
  capture,
  fixture,
  fixtureJson,
  formFields,
  KDN,
  KDN_OPTIONS,
  md5,
  runKuaid,
  type Seen,
  trackData,
} from './support.js';

nock.disableNetConnect();
t.afterEach(() => nock.cleanAll());

function replyKdn(body: string, seen: Seen[], status = 200): nock.Scope {
  return nock('https://api.kdniao.com')
    .post('/Ebusiness/EbusinessOrderHandle.aspx')
    .reply(async (request) => {
      await capture(request, seen);
      return [status, body, { 'content-type': 'application/json' }];
    });
}

t.test('signed request: RequestData url-encoded once, DataSign = urlencode(base64(md5hex))', async (t) => {
  const seen: Seen[] = [];
  replyKdn(fixture('kdn-yto-oldest-first.json'), seen);
  const out = await runKuaid(
    { no: 'yt8962646785389', phone: '13812345678' },
    { ...KDN_OPTIONS, kdniao_request_type: '8001' },
  );
  const data = trackData(out);

  const req = seen[0];
  t.match(req.headers['content-type'], /^application\/x-www-form-urlencoded;charset=utf-8/);
  t.match(req.body, /^RequestData=%7B%22OrderCode%22/, 'RequestData is encoded exactly once');
  t.notMatch(req.body, /%25/, 'nothing is double-encoded');
  const f = formFields(req.body);
  t.same(Object.keys(f), ['RequestData', 'EBusinessID', 'RequestType', 'DataSign', 'DataType']);
  t.equal(f.EBusinessID, KDN.businessId);
  t.equal(f.RequestType, '8001');
  t.equal(f.DataType, '2');
  t.same(JSON.parse(f.RequestData), {
    OrderCode: '',
    ShipperCode: 'YTO',
    LogisticCode: 'YT8962646785389',
    CustomerName: '5678',
  });
  const expected = Buffer.from(md5(f.RequestData + KDN.apiKey), 'utf8').toString('base64');
  t.equal(f.DataSign, expected, 'base64 of the 32-char hex string, not of the raw digest');
  t.equal(f.DataSign.length, 44);
  t.equal(req.body, new URLSearchParams(f).toString(), 'canonical form encoding ("+", "/" and "=" of base64 escaped)');

  t.equal(data.provider, 'kdniao');
  t.equal(data.state, 'SIGNED', 'StateEx 311 (locker) refines State 3');
  t.equal(data.at_locker, true);
  t.equal(data.updated_at, '2019-06-25T19:20:00+08:00', 'slash dates normalised');
  t.same(
    data.traces.map((tr) => tr.time),
    [
      '2019-06-25T19:20:00+08:00',
      '2019-06-25T08:05:37+08:00',
      '2019-06-24T02:15:33+08:00',
      '2019-06-23T18:40:02+08:00',
    ],
    'oldest-first trail comes back newest first',
  );
  t.equal(data.traces[0].location, '上海市');
});

t.test('State as a number, 1002 by default, no CustomerName without a phone', async (t) => {
  const seen: Seen[] = [];
  replyKdn(fixture('kdn-state-number.json'), seen);
  const data = trackData(await runKuaid({ no: '773277027280336' }, KDN_OPTIONS));
  const f = formFields(seen[0].body);
  t.equal(f.RequestType, '1002');
  t.same(JSON.parse(f.RequestData), {
    OrderCode: '',
    ShipperCode: 'STO',
    LogisticCode: '773277027280336',
    CustomerName: '',
  });
  t.equal(data.state, 'IN_TRANSIT');
  t.equal(data.traces[0].context, '【杭州转运中心】已发出');
  t.equal(data.traces[0].location, null);
});

t.test('failure shapes', async (t) => {
  const FAILED = '快递数据提供方查询失败（kdniao 出错）';
  const cases: Array<{
    name: string;
    body: string;
    status?: number;
    code: string;
    message?: RegExp;
    /** The provider's own words: the operator's detail, never in the caller's message. */
    detail?: RegExp;
    zh?: RegExp | string;
  }> = [
    {
      name: 'Success:true, Traces:[], State 0',
      body: fixture('kdn-empty.json'),
      code: 'NOT_FOUND',
      message: /^No tracking record yet for 463431409940372 at Yunda Express/,
      zh: /^暂无物流轨迹：韵达快递 还没有单号 463431409940372 的记录/,
    },
    {
      name: 'Success:false, no trail reason',
      body: fixture('kdn-failure-no-trail.json'),
      code: 'NOT_FOUND',
      message: /not charged/,
      zh: '暂无物流轨迹：韵达快递 还没有单号 463431409940372 的记录，新单号通常在揽收后几小时内出现首条轨迹，请稍后再查（本次未扣费）。',
    },
    {
      name: 'Success:false, courier not carried',
      body: '{"Success":false,"Reason":"暂不支持此快递公司"}',
      code: 'UNSUPPORTED',
      message: /kdniao does not carry yunda/,
      zh: '已配置的快递数据提供方都不支持韵达快递（yunda）（kdniao 不支持 yunda）；如果是其他快递公司，请传 com= 指定',
    },
    {
      name: 'Success:false, sign failure',
      body: fixture('kdn-failure-sign.json'),
      code: 'UPSTREAM_FAILED',
      detail: /kdniao Success:false 数据签名验证失败/,
      zh: FAILED,
    },
    {
      name: 'Success:false, wrong phone',
      body: '{"Success":false,"Reason":"手机号后四位不正确"}',
      code: 'INVALID_INPUT',
      message:
        /^the phone number does not match this Yunda Express parcel: pass the sender's or receiver's phone or its last 4 digits$/,
      detail: /^kdniao Success:false 手机号后四位不正确$/,
      zh: '手机号与这件韵达快递快件不符：请传寄件人或收件人的手机号或手机号后 4 位',
    },
    {
      name: 'Success:false, no package',
      body: '{"Success":false,"Reason":"没有可用套餐"}',
      code: 'UPSTREAM_FAILED',
      detail: /没有可用套餐/,
      zh: FAILED,
    },
    {
      name: 'HTTP 500',
      body: 'Server Error',
      status: 500,
      code: 'UPSTREAM_FAILED',
      detail: /kdniao answered HTTP 500/,
      zh: FAILED,
    },
    { name: 'not JSON', body: '<html></html>', code: 'UPSTREAM_FAILED', detail: /not JSON/, zh: FAILED },
    { name: 'no Success key', body: '{"foo":1}', code: 'UPSTREAM_FAILED', detail: /unexpected shape/, zh: FAILED },
    { name: 'BOM before JSON', body: `\uFEFF${fixture('kdn-state-number.json')}`, code: 'IN_TRANSIT' },
  ];
  for (const c of cases) {
    replyKdn(c.body, [], c.status);
    const out = await runKuaid({ no: '463431409940372' }, KDN_OPTIONS);
    if (c.code === 'IN_TRANSIT') {
      t.equal(trackData(out).state, c.code, c.name);
    } else {
      const message = c.code === 'UPSTREAM_FAILED' ? 'parcel providers failed (kdniao failed)' : c.message;
      t.match(
        out,
        { ok: false, code: c.code, message, message_zh: c.zh, ...(c.detail ? { detail: c.detail } : {}) },
        c.name,
      );
      if (!c.detail) t.equal(out.ok === false && out.detail, undefined, `${c.name}: no operator detail`);
    }
  }
});

t.test('couriers Kdniao has no code for are not sent to it', async (t) => {
  const out = await runKuaid({ no: '123456789012', com: 'yimidida' }, KDN_OPTIONS);
  t.match(out, {
    ok: false,
    code: 'UNSUPPORTED',
    message: 'no configured parcel provider can query 壹米滴答 (yimidida); configure kuaidi100',
    message_zh: '已配置的快递数据提供方都无法查询壹米滴答（yimidida），需配置快递100（kuaidi100）',
  });
});

t.test('every Kdniao State / StateEx maps', async (t) => {
  const table: Array<[string | number, string | null, string, boolean?]> = [
    ['0', null, 'PENDING'],
    [10, null, 'PENDING'],
    ['1', null, 'PICKED_UP'],
    [2, null, 'IN_TRANSIT'],
    ['2', '201', 'IN_TRANSIT'],
    ['2', '202', 'DELIVERING'],
    ['2', '204', 'IN_TRANSIT'],
    ['2', '205', 'IN_TRANSIT'],
    ['2', '206', 'IN_TRANSIT'],
    ['2', '211', 'DELIVERING', true],
    ['3', null, 'SIGNED'],
    ['3', '301', 'SIGNED'],
    ['3', '302', 'SIGNED'],
    ['3', '304', 'SIGNED'],
    ['3', '311', 'SIGNED', true],
    ['4', null, 'EXCEPTION'],
    ['4', '401', 'EXCEPTION'],
    ['4', '402', 'EXCEPTION'],
    ['4', '403', 'EXCEPTION'],
    ['4', '404', 'REJECTED'],
    ['4', '405', 'EXCEPTION'],
    ['4', '406', 'RETURNED'],
    ['4', '407', 'RETURNING'],
    ['4', '412', 'EXCEPTION', true],
    ['4', '413', 'EXCEPTION'],
    ['4', '414', 'EXCEPTION'],
    ['4', '415', 'CANCELLED'],
    ['4', '416', 'EXCEPTION'],
    ['4', '417', 'EXCEPTION'],
    ['4', '418', 'EXCEPTION'],
    ['4', '419', 'EXCEPTION'],
    ['4', '420', 'EXCEPTION'],
    ['4', '421', 'EXCEPTION'],
    ['4', '422', 'EXCEPTION'],
    ['4', '423', 'EXCEPTION'],
    ['5', null, 'TRANSFERRED'],
    ['6', null, 'CUSTOMS'],
    ['6', '601', 'CUSTOMS'],
    ['6', '602', 'CUSTOMS'],
    ['6', '603', 'CUSTOMS'],
    ['6', '604', 'EXCEPTION'],
    ['9', null, 'UNKNOWN'],
    ['3', '404', 'SIGNED'], // a sub-code of another parent does not override
  ];
  const base = fixtureJson('kdn-state-number.json');
  for (const [State, StateEx, state, locker] of table) {
    const body = JSON.stringify({ ...base, State, ...(StateEx ? { StateEx } : {}) });
    t.match(
      readKdniaoAnswer(body),
      { kind: 'found', track: { state, at_locker: !!locker } },
      `${State}/${StateEx} -> ${state}`,
    );
  }
});
