// Offline detection: the published formats per courier, confidence and ambiguity, the shared 12/13-digit
// shapes ranked by prefix (not length), normalisation, the format table's integrity and detect mode.

import nock from 'nock';
import t from 'tap';
import { COURIERS, findCourier } from '../../../plugins/kuaid/couriers.js';
import { certain, detectCouriers, isAmbiguous, mergeOpinion, normaliseNumber } from '../../../plugins/kuaid/detect.js';
import { FORMAT_RULES } from '../../../plugins/kuaid/format-rules.js';
import { detectData, runKuaid } from './support.js';

nock.disableNetConnect();

const codes = (no: string): string[] => detectCouriers(no).candidates.map((c) => c.courier.code);

// Format facts (the couriers' published formats, see plugins/kuaid/format-rules.ts). Numbers marked * are real ones from fixtures/real-numbers.json; the
// rest are shaped after the published format to pin each rule.
const FIRST: Array<[string, string]> = [
  ['YT8962646785389', 'yuantong'], // * YT + 13
  ['800398697338673378', 'yuantong'], // * 18 digits 80
  ['889966941641165886', 'yuantong'], // * 18 digits 88
  ['3101449726243', 'yunda'], // * 13 digits 31
  ['3831182816959', 'yunda'], // * 38
  ['3903300539521', 'yunda'], // * 39
  ['4310508235533', 'yunda'], // * 43
  ['463431409940372', 'yunda'], // * 15 digits 46
  ['434999702940283', 'yunda'], // * 15 digits 43
  ['1115785780598', 'ems'], // * 13 digits 11
  ['EA123456789CN', 'ems'], // UPU S10
  ['9893442769997', 'youzhengguonei'], // * 13 digits 98
  ['773277027280336', 'shentong'], // * 773 + 12
  ['3387798869530', 'shentong'], // * older 33
  ['73108995922259', 'zhongtong'], // * 14 digits 73
  ['75310813494280', 'zhongtong'], // * 75
  ['78109356970791', 'zhongtong'], // * 78
  ['JDX024407261700', 'jd'], // * JDX
  ['JD0076810060555', 'jd'], // * JD + 13
  ['JDVC14368245107123', 'jd'], // * JDVC + 14
  ['VA11408814483', 'jd'], // VA + 11
  ['VB40641457651', 'jd'], // * VB + 11
  ['60066247971', 'jd'], // * 11-digit legacy
  ['50002498503427', 'huitongkuaidi'], // * 14 digits 50
  ['557004121149743', 'huitongkuaidi'], // * 15 digits 55
  ['70577935260961', 'huitongkuaidi'], // 14 digits 70
  ['TT6600236034657', 'tiantian'], // * TT + 13
  ['SN1234567890123456', 'suning'], // SN + 16
  ['JT5261988016578', 'jtexpress'], // * JT + 13
  ['SF1385628716739', 'shunfeng'], // * SF + 13
  ['903773876792', 'shunfeng'], // * 12 digits 9x
  ['DPK202252612836', 'debangkuaidi'], // * DPK + 12
  ['DPK202252612836-001', 'debangkuaidi'], // piece suffix
  ['9986459371', 'debangwuliu'], // * 10-digit legacy
  ['1Z999AA10123456784', 'ups'], // UPS 1Z + 16
  ['611090452344701', 'danniao'], // 15 digits 6
  ['ZJS123456789012', 'zhaijisong'],
];

t.test('each published format ranks its courier first', async (t) => {
  for (const [no, com] of FIRST) t.equal(codes(no)[0], com, `${no} -> ${com}`);
});

t.test('letter prefixes are certain; shared shapes are not', async (t) => {
  t.same(detectCouriers('SF1385628716739'), {
    candidates: [{ courier: findCourier('shunfeng'), confidence: 1 }],
    ambiguous: false,
  });
  const zto = detectCouriers('75310813494280');
  t.same(
    zto.candidates.map((c) => [c.courier.code, c.confidence]),
    [
      ['zhongtong', 0.86],
      ['huitongkuaidi', 0.14],
    ],
    '14 digits 75: ZTO, Best far behind',
  );
  t.equal(zto.ambiguous, false);
  const best = detectCouriers('70388432404380');
  t.same(
    best.candidates.map((c) => [c.courier.code, c.confidence]),
    [
      ['huitongkuaidi', 0.8],
      ['zhongtong', 0.2],
    ],
  );
  t.equal(best.ambiguous, false);
  // EMS and Yunda both issued 13-digit numbers starting 10: close, so ambiguous.
  const ten = detectCouriers('1000824342255');
  t.same(
    ten.candidates.map((c) => [c.courier.code, c.confidence]),
    [
      ['ems', 0.55],
      ['yunda', 0.45],
    ],
  );
  t.equal(ten.ambiguous, true);
});

t.test('confidences are in 0..1 and never rise down the list', async (t) => {
  for (const no of [
    '123456789012',
    '444669873836',
    '3318022286405',
    '1201903788947',
    '9630067620008',
    '434080499334709',
    '9473736974',
  ]) {
    const list = detectCouriers(no).candidates;
    t.ok(list.length > 0, `${no} has candidates`);
    list.forEach((c, i) => {
      t.ok(c.confidence > 0 && c.confidence <= 1, `${no} ${c.courier.code} ${c.confidence} in (0, 1]`);
      if (i > 0) t.ok(c.confidence <= list[i - 1].confidence, `${no}: ${c.courier.code} not above the one before`);
    });
    t.ok(list.length <= 8, 'candidate list is capped');
  }
});

t.test('length alone decides nothing: the prefix ranks the 12- and 13-digit networks', async (t) => {
  // Real numbers (fixtures/real-numbers.json): same length, different couriers first.
  t.equal(codes('903773876792')[0], 'shunfeng', '12 digits 9x: SF');
  t.equal(codes('454244690951')[0], 'zhongtong', '12 digits 4x: ZTO');
  t.equal(codes('669696824735')[0], 'tiantian', '12 digits 66: TTK');
  t.equal(codes('227213764418')[0], 'shentong', '12 digits 22: STO');
  t.equal(codes('803990371143')[0], 'yuantong', '12 digits 80: YTO');
  t.equal(codes('1193282791013')[0], 'ems', '13 digits 11: EMS');
  t.equal(codes('3909171326194')[0], 'yunda', '13 digits 39: Yunda');
  t.equal(codes('3378237498354')[0], 'shentong', '13 digits 33: STO');
  t.equal(codes('9862325358361')[0], 'youzhengguonei', '13 digits 98: China Post');
  // The rivals stay listed so a caller (or the provider loop) can try them.
  t.same(codes('3378237498354').slice(0, 2), ['shentong', 'yunda']);
  t.same(codes('434080499334709'), ['yunda', 'shentong'], '43... 15 digits: Yunda, STO a distant second');
  const twelve = codes('123456789012');
  for (const code of ['shunfeng', 'shentong', 'yuantong', 'tiantian', 'youshuwuliu', 'ane66'])
    t.ok(twelve.includes(code), `12 digits may be ${code}`);
});

t.test('numbers no courier uses are not guessed', async (t) => {
  for (const no of ['HELLOWORLD123', '00000000000000000000', '2123456789012345', 'SF12345', '000000']) {
    const norm = normaliseNumber(no);
    t.ok(norm.ok, `${no} is well formed`);
    if (norm.ok) t.same(detectCouriers(norm.no).candidates, [], `${no} matches nothing`);
  }
});

t.test('normalisation: trim, inner spaces, upper case, charset, length', async (t) => {
  t.same(normaliseNumber('  sf 1385 6287 16739 '), { ok: true, no: 'SF1385628716739' });
  t.same(normaliseNumber('dpk202252612836-001'), { ok: true, no: 'DPK202252612836-001' });
  t.same(normaliseNumber('SF138562871673#'), {
    ok: false,
    reason: 'tracking number "SF138562871673#" may only hold letters, digits and "-"',
    reason_zh: '快递单号 "SF138562871673#" 只能包含字母、数字和 "-"',
  });
  t.same(normaliseNumber('12345'), {
    ok: false,
    reason: 'tracking number must be 6-32 characters, got 5',
    reason_zh: '快递单号须为 6 至 32 位，实际为 5 位',
  });
  t.same(normaliseNumber('1'.repeat(33)), {
    ok: false,
    reason: 'tracking number must be 6-32 characters, got 33',
    reason_zh: '快递单号须为 6 至 32 位，实际为 33 位',
  });
  t.same(normaliseNumber('  '), { ok: false, reason: 'the tracking number is empty', reason_zh: '快递单号为空' });
});

t.test('the courier and format tables are well formed', async (t) => {
  const seen = new Set<string>();
  for (const c of COURIERS) {
    t.match(c.code, /^[a-z0-9]+$/, `${c.code} is a Kuaidi100-style code`);
    t.notOk(seen.has(c.code), `${c.code} is listed once`);
    seen.add(c.code);
    t.ok(c.zh && c.en, `${c.code} has both names`);
  }
  for (const row of FORMAT_RULES) {
    t.ok(findCourier(row.com)?.code === row.com, `rule ${row.pattern} names a courier of the table (${row.com})`);
    t.ok(row.weight >= 1 && row.weight <= 100, `rule ${row.pattern} weight ${row.weight} in 1..100`);
    t.match(row.pattern, /^\^.*\$$/, `rule ${row.pattern} is anchored`);
  }
  t.equal(findCourier('SF')?.code, 'shunfeng', 'aliases resolve case-insensitively');
  t.equal(findCourier('yd')?.code, 'yunda');
  t.equal(findCourier('nosuch'), undefined);
});

t.test('mergeOpinion: the second opinion goes first, lifted, confidences stay ordered', async (t) => {
  const rules = detectCouriers('434080499334709').candidates; // yunda .81, shentong .19
  const [sto, ems] = ['shentong', 'ems'].map((c) => findCourier(c)!);
  t.same(
    mergeOpinion(rules, [sto]).map((r) => [r.courier.code, r.confidence]),
    [
      ['shentong', 0.9],
      ['yunda', 0.81],
    ],
  );
  t.same(
    mergeOpinion([], [ems, sto]).map((r) => [r.courier.code, r.confidence]),
    [
      ['ems', 0.9],
      ['shentong', 0.8],
    ],
    'rules found nothing: the opinion stands',
  );
  t.same(
    mergeOpinion(rules, [ems]).map((r) => [r.courier.code, r.confidence]),
    [
      ['yunda', 0.81],
      ['ems', 0.5],
      ['shentong', 0.19],
    ],
    'a disagreeing opinion gets one try',
  );
  t.same(mergeOpinion(rules, []), rules);
  t.equal(isAmbiguous([certain(sto)]), false);
});

t.test('detect mode: no upstream, the candidates with confidences', async (t) => {
  const sf = detectData(await runKuaid({ no: 'sf1385628716739' }, { mode: 'detect' }, { operation: 'kuaid_detect' }));
  t.same(sf, {
    no: 'SF1385628716739',
    com: 'shunfeng',
    company: '顺丰速运',
    company_en: 'SF Express',
    needs_phone: true,
    confidence: 1,
    ambiguous: false,
    candidates: [{ com: 'shunfeng', company: '顺丰速运', company_en: 'SF Express', confidence: 1 }],
  });
  const amb = detectData(await runKuaid({ no: '1000745320654' }, { mode: 'detect' }));
  t.same(amb, {
    no: '1000745320654',
    com: 'ems',
    company: 'EMS',
    company_en: 'EMS (China Post Express)',
    needs_phone: false,
    confidence: 0.55,
    ambiguous: true,
    candidates: [
      { com: 'ems', company: 'EMS', company_en: 'EMS (China Post Express)', confidence: 0.55 },
      { com: 'yunda', company: '韵达快递', company_en: 'Yunda Express', confidence: 0.45 },
    ],
  });

  const pinned = detectData(await runKuaid({ no: '434080499334709', com: 'sto' }, { mode: 'detect' }));
  t.match(pinned, { com: 'shentong', confidence: 1, ambiguous: false }, 'com skips detection and resolves aliases');

  const unknown = await runKuaid({ no: '2123456789012345' }, { mode: 'detect' });
  t.match(unknown, {
    ok: false,
    code: 'INVALID_INPUT',
    message:
      'tracking number 2123456789012345 (16 digits) matches no known courier format; pass com= (e.g. com=shunfeng) to name the courier',
    message_zh:
      '快递单号 2123456789012345（16 位数字）不符合任何已知快递公司的单号格式；请传 com=（如 com=shunfeng）指定快递公司',
  });
  const lettered = await runKuaid({ no: 'HELLOWORLD123' }, { mode: 'detect' });
  t.match(lettered, {
    message:
      'tracking number HELLOWORLD123 ("HELLOWORLD123") matches no known courier format; pass com= (e.g. com=shunfeng) to name the courier',
    message_zh: '快递单号 HELLOWORLD123 不符合任何已知快递公司的单号格式；请传 com=（如 com=shunfeng）指定快递公司',
  });

  const bad = await runKuaid({ no: 'SF13856287#6739' }, { mode: 'detect' });
  t.match(bad, {
    ok: false,
    code: 'INVALID_INPUT',
    message: 'tracking number "SF13856287#6739" may only hold letters, digits and "-"',
    message_zh: '快递单号 "SF13856287#6739" 只能包含字母、数字和 "-"',
  });
  t.equal(nock.pendingMocks().length, 0);
});

t.test('detect mode: an unknown com is INVALID_INPUT, never echoed as a courier (audit S4)', async (t) => {
  const out = await runKuaid({ no: '000000', com: 'nosuchcourier' }, { mode: 'detect' }, { operation: 'kuaid_detect' });
  t.same({ ok: out.ok, code: !out.ok && out.code }, { ok: false, code: 'INVALID_INPUT' });
  t.match(out, {
    message: /^com "nosuchcourier" is not a courier code we know: use a Kuaidi100 code such as shunfeng/,
    message_zh: /^未知的快递公司编码 "nosuchcourier"：/,
  });
});
