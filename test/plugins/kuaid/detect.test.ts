// Offline detection: real-format numbers per courier, the ambiguous families, normalisation, detect mode.
import t from 'tap';
import nock from 'nock';
import { detectCouriers, normaliseNumber, mergeOpinion } from '../../../plugins/kuaid/detect.js';
import { COURIERS, findCourier } from '../../../plugins/kuaid/couriers.js';
import { runKuaid, detectData } from './support.js';

nock.disableNetConnect();

// Top candidate expected for each number; `ambiguous` marks families kuaid.md says several couriers share.
const CASES: Array<{ com: string; numbers: string[]; ambiguous?: boolean }> = [
  { com: 'shunfeng', numbers: ['SF1385628716739', 'SF1402654321987', 'SF0000000000001'] },
  { com: 'zhongtong', numbers: ['73610555582883', '75166031906321', '78312345678901', '74100000000012'] },
  { com: 'yuantong', numbers: ['YT8962646785389', 'YT1234567890123', 'YT7000123456789', '880000000000000001'] },
  { com: 'shentong', numbers: ['773277027280336', '773012345678901', '772004567891234'] },
  { com: 'yunda', numbers: ['463431409940372', '466123456789012', '312345678901234', '3950055201640', '4012345678901'] },
  { com: 'jtexpress', numbers: ['JT5261988016578', 'JT0001234567890', 'JT3123456789012'] },
  { com: 'jd', numbers: ['JDX024407261700', 'JDVA11408814483', 'JDVC12345678901'] },
  { com: 'ems', numbers: ['EA123456789CN', 'LK987654321CN', '1172345678901', '1012345678901'] },
  { com: 'youzhengguonei', numbers: ['9860401996391', '9912345678901', '9612345678901'] },
  { com: 'debangkuaidi', numbers: ['DPK202252612836', 'DPK123456789012', 'DPK202252612836-001'] },
  { com: 'debangwuliu', numbers: ['56781234', '123456789', '56781234-002'] },
  { com: 'huitongkuaidi', numbers: ['70577935260961', '71234567890123', '55123456789012'] },
  { com: 'zhaijisong', numbers: ['ZJS123456789012', 'A123456789012', 'ZJS000111222333', 'B12C45D78E'] },
  { com: 'danniao', numbers: ['611090452344701', '621234567890123', '600012345678901'] },
  { com: 'youshuwuliu', numbers: ['VIP123456789', 'VIP0012345678', 'VIP20240610123'] },
  { com: 'kuayue', numbers: ['KY4000123456', 'KY12345678901', 'KY3000000001A'] },
  // The ambiguous families (kuaid.md §2).
  { com: 'yunda', numbers: ['434080499334709', '431234567890123', '430000000000001'], ambiguous: true },
  { com: 'ems', numbers: ['5012345678901', '5112345678901', '5912345678901'], ambiguous: true },
  { com: 'debangwuliu', numbers: ['1234567890', '8001234567'], ambiguous: true },
  { com: 'shunfeng', numbers: ['123456789012', '210987654321', '668012345678'], ambiguous: true },
];

t.test('each courier: numbers of its format rank it first', async (t) => {
  for (const c of CASES) {
    for (const no of c.numbers) {
      const d = detectCouriers(no);
      t.equal(d.candidates[0]?.code, c.com, `${no} -> ${c.com}`);
      t.equal(d.ambiguous, !!c.ambiguous, `${no} ambiguous: ${!!c.ambiguous}`);
    }
  }
});

t.test('ambiguous families list the rival couriers', async (t) => {
  t.same(detectCouriers('434080499334709').candidates.map((c) => c.code), ['yunda', 'shentong'], '43... 15 digits: Yunda, then STO');
  t.same(detectCouriers('5012345678901').candidates.map((c) => c.code), ['ems', 'yunda'], '13 digits starting 5: EMS, then Yunda');
  const twelve = detectCouriers('123456789012').candidates.map((c) => c.code);
  for (const code of ['shunfeng', 'zhongtong', 'tiantian', 'youshuwuliu', 'zhongtongkuaiyun', 'ane66', 'yimidida']) {
    t.ok(twelve.includes(code), `12 digits may be ${code}`);
  }
  t.ok(twelve.length <= 8, 'candidate list is capped');
  // STO's legacy 12-13 digit prefixes stay weak guesses behind the stronger formats.
  t.same(detectCouriers('3720123456789').candidates.map((c) => c.code), ['yunda', 'shentong']);
  t.ok(detectCouriers('268123456789').candidates.some((c) => c.code === 'shentong'), 'x68 12 digits may be STO');
  // The 12-digit legacy networks that have no other format are only ever candidates.
  for (const no of ['123456789012', '300000000001', '900000000009']) {
    const codes = detectCouriers(no).candidates.map((c) => c.code);
    t.ok(codes.includes('tiantian') && codes.includes('ane66'), `${no} lists TTK and ANE`);
  }
});

t.test('numbers no courier uses are not guessed', async (t) => {
  for (const no of ['12345', 'HELLOWORLD123', '00000000000', '2123456789012345', 'SF12345']) {
    const norm = normaliseNumber(no);
    if (norm.ok) t.same(detectCouriers(norm.no).candidates, [], `${no} matches nothing`);
  }
});

t.test('normalisation: trim, inner spaces, upper case, charset, length', async (t) => {
  t.same(normaliseNumber('  sf 1385 6287 16739 '), { ok: true, no: 'SF1385628716739' });
  t.same(normaliseNumber('dpk202252612836-001'), { ok: true, no: 'DPK202252612836-001' });
  t.match(normaliseNumber('SF138562871673#'), { ok: false, reason: /letters, digits/ });
  t.match(normaliseNumber('12345'), { ok: false, reason: /6-32 characters/ });
  t.match(normaliseNumber('1'.repeat(33)), { ok: false, reason: /6-32 characters/ });
});

t.test('every table row is well formed and codes are unique', async (t) => {
  const codes = new Set<string>();
  for (const c of COURIERS) {
    t.match(c.code, /^[a-z0-9]+$/, `${c.code} is a Kuaidi100-style code`);
    t.notOk(codes.has(c.code), `${c.code} is listed once`);
    codes.add(c.code);
    t.ok(c.zh && c.en, `${c.code} has both names`);
  }
  t.equal(findCourier('SF')?.code, 'shunfeng', 'aliases resolve case-insensitively');
  t.equal(findCourier('yd')?.code, 'yunda');
  t.equal(findCourier('nosuch'), undefined);
});

t.test('mergeOpinion puts the second opinion first where it agrees', async (t) => {
  const [yunda, sto, ems] = ['yunda', 'shentong', 'ems'].map((c) => findCourier(c)!);
  t.same(mergeOpinion([yunda, sto], [sto]).map((c) => c.code), ['shentong', 'yunda']);
  t.same(mergeOpinion([], [ems]).map((c) => c.code), ['ems'], 'rules found nothing: the opinion stands');
  t.same(mergeOpinion([yunda, sto], [ems]).map((c) => c.code), ['yunda', 'ems', 'shentong'], 'disagreeing opinion gets one try');
  t.same(mergeOpinion([yunda, sto], []).map((c) => c.code), ['yunda', 'shentong']);
});

t.test('detect mode: no upstream, answers the courier and candidates', async (t) => {
  const sf = detectData(await runKuaid({ no: 'sf1385628716739' }, { mode: 'detect' }, { operation: 'kuaid_detect' }));
  t.same(sf, {
    no: 'SF1385628716739', com: 'shunfeng', company: '顺丰速运', company_en: 'SF Express',
    needs_phone: true, ambiguous: false, candidates: [{ com: 'shunfeng', company: '顺丰速运' }],
  });
  const amb = detectData(await runKuaid({ no: '434080499334709' }, { mode: 'detect' }));
  t.equal(amb.com, 'yunda');
  t.equal(amb.ambiguous, true);
  t.same(amb.candidates.map((c) => c.com), ['yunda', 'shentong']);
  t.equal(amb.needs_phone, false);

  const pinned = detectData(await runKuaid({ no: '434080499334709', com: 'sto' }, { mode: 'detect' }));
  t.equal(pinned.com, 'shentong', 'com skips detection and resolves aliases');

  const unknown = await runKuaid({ no: '2123456789012345' }, { mode: 'detect' });
  t.match(unknown, { ok: false, code: 'INVALID_INPUT', message: /matches no known courier format.*com=/ });

  const bad = await runKuaid({ no: 'SF13856287#6739' }, { mode: 'detect' });
  t.match(bad, { ok: false, code: 'INVALID_INPUT', message: /letters, digits/ });
  t.equal(nock.pendingMocks().length, 0);
});
