// CSV exports a spreadsheet reads right: a UTF-8 BOM, times in the reader's time zone
// (?tz=, default Asia/Shanghai), header labels in the UI language (?lang=, else Accept-Language, else Chinese).
// The streaming limits of calls.csv are in test/security/accounts-csv-export.test.ts.
import t from 'tap';
import { postEntry } from '../../core/billing/ledger.js';
import { localClock } from '../../core/console/api/csv-locale.js';
import { toMicro } from '../../core/kernel/money.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';
import { admin, consoleUser } from './support.js';

let h: TestApp;
t.before(async () => {
  h = await createTestApp();
});
t.teardown(() => h.close());

const NOW = Date.now();
/** Two calls in winter and one in summer (New York changes its offset in between), fixed to the second. */
const WINTER = Date.UTC(2026, 0, 15, 16, 30, 5);
const SUMMER = Date.UTC(2026, 6, 1, 3, 4, 59);

/** The key column names the key as the console does: its name and prefix. */
async function seed(userId: number, keyId: number): Promise<string> {
  const key = await h.services.store.db
    .selectFrom('api_keys')
    .select(['name', 'prefix'])
    .where('id', '=', keyId)
    .executeTakeFirstOrThrow();
  const base = {
    user_id: userId,
    key_id: keyId,
    operation: 'echo',
    charged: 0,
    cached: 0,
    free_reason: null,
    duration_ms: 2.5,
    plugin_ms: null,
    ip: '203.0.113.7',
  };
  await h.services.store.db
    .insertInto('call_log')
    .values([
      { ...base, request_id: `req_w1_${userId}`, status: 200, error_code: null, charged: 5000, created_at: WINTER },
      {
        ...base,
        request_id: `req_w2_${userId}`,
        status: 400,
        error_code: 'INVALID_INPUT',
        created_at: WINTER + 30_000,
      },
      {
        ...base,
        request_id: `req_s_${userId}`,
        status: 200,
        error_code: null,
        cached: 1,
        free_reason: 'cache',
        created_at: SUMMER,
      },
    ])
    .execute();
  return `${key.name} (${key.prefix})`;
}

const ids = async (userId: number): Promise<number[]> =>
  (
    await h.services.store.db
      .selectFrom('call_log')
      .select('id')
      .where('user_id', '=', userId)
      .orderBy('id', 'desc')
      .execute()
  ).map((r) => Number(r.id));

t.test('default: BOM, Chinese header, Asia/Shanghai times', async (t) => {
  const u = await consoleUser(h, 0);
  const key = await seed(u.userId, u.keyId);
  const res = await h.client.get('/console/api/calls.csv?from=2026-01-01&to=2026-04-01', u.headers);
  t.equal(res.status, 200);
  t.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
  t.equal(
    res.text,
    '\uFEFF请求 ID,时间（Asia/Shanghai）,接口,密钥,状态,错误码,扣费（TOKEN）,缓存命中,免费原因,耗时（毫秒）,IP\r\n' +
      `req_w2_${u.userId},2026-01-16 00:30:35,echo,${key},400,INVALID_INPUT,0,0,,2.5,203.0.113.7\r\n` +
      `req_w1_${u.userId},2026-01-16 00:30:05,echo,${key},200,,0.005,0,,2.5,203.0.113.7\r\n`,
  );
  t.same([...Buffer.from(res.text, 'utf8').subarray(0, 3)], [0xef, 0xbb, 0xbf], 'the BOM is the UTF-8 bytes EF BB BF');
  const rowIds = (await ids(u.userId)).map(String);
  t.notOk(
    res.text.split('\r\n').some((line) => rowIds.includes(line.split(',')[0])),
    'no column is the service-wide call-log row number',
  );
  t.notMatch(res.text, `,${u.keyId},`, 'nor the internal key id');
});

t.test("?tz= and ?lang=en: the reader's zone (daylight saving included) and English labels", async (t) => {
  const u = await consoleUser(h, 0);
  const key = await seed(u.userId, u.keyId);
  const res = await h.client.get(
    '/console/api/calls.csv?tz=America/New_York&lang=en&from=2026-01-01&to=2026-03-01',
    u.headers,
  );
  t.equal(
    res.text,
    '\uFEFFRequest ID,Time (America/New_York),Operation,Key,Status,Error code,Charged (TOKEN),Cached,Free because,Duration (ms),IP\r\n' +
      `req_w2_${u.userId},2026-01-15 11:30:35,echo,${key},400,INVALID_INPUT,0,0,,2.5,203.0.113.7\r\n` +
      `req_w1_${u.userId},2026-01-15 11:30:05,echo,${key},200,,0.005,0,,2.5,203.0.113.7\r\n`,
  );
  const summer = await h.client.get(
    '/console/api/calls.csv?tz=America/New_York&lang=en&from=2026-06-01&to=2026-08-01',
    u.headers,
  );
  t.equal(
    summer.text.split('\r\n')[1],
    `req_s_${u.userId},2026-06-30 23:04:59,echo,${key},200,,0,1,cache,2.5,203.0.113.7`,
    'EDT is UTC-4: the day before',
  );
  const english = await h.client.get('/console/api/calls.csv?tz=UTC&from=2026-06-01&to=2026-08-01', {
    ...u.headers,
    'accept-language': 'en-GB,en;q=0.8,zh;q=0.5',
  });
  t.equal(
    english.text.split('\r\n')[0],
    '\uFEFFRequest ID,Time (UTC),Operation,Key,Status,Error code,Charged (TOKEN),Cached,Free because,Duration (ms),IP',
    'Accept-Language when no lang is given',
  );
  t.equal(
    english.text.split('\r\n')[1],
    `req_s_${u.userId},2026-07-01 03:04:59,echo,${key},200,,0,1,cache,2.5,203.0.113.7`,
  );
});

t.test('a zone or language that does not exist is a 400 before any export starts', async (t) => {
  const u = await consoleUser(h, 0);
  const long = await h.client.get(`/console/api/calls.csv?tz=${'x'.repeat(65)}`, u.headers);
  t.same(long.body.error, { code: 'INVALID_INPUT', message: "'tz' must be at most 64 characters." });
  for (const tz of ['Mars/Olympus', '../etc/passwd', 'Asia/Shanghai ', 'Asia/Shanghai\n']) {
    const res = await h.client.get(`/console/api/calls.csv?tz=${encodeURIComponent(tz)}`, u.headers);
    t.equal(res.status, 400, tz);
    t.same(res.body.error, {
      code: 'INVALID_INPUT',
      message: "'tz' must be an IANA time zone such as Asia/Shanghai or Europe/London.",
    });
  }
  const lang = await h.client.get('/console/api/calls.csv?lang=fr', u.headers);
  t.same(lang.body.error, { code: 'INVALID_INPUT', message: "'lang' must be one of zh, en." });
  const ok = await h.client.get('/console/api/calls.csv?tz=Europe/Berlin&lang=zh', u.headers);
  t.equal(ok.status, 200, 'the refusals did not use up the export budget');
});

t.test('admin exports: Chinese text survives as UTF-8 after the BOM, times in the zone asked for', async (t) => {
  const a = await admin(h);
  const u = await consoleUser(h, 0, { email: 'zhang.san@example.cn' });
  await postEntry(h.services.store.db, {
    userId: u.userId,
    amount: toMicro(3),
    kind: 'grant',
    ref: `csv-zh:${u.userId}`,
    note: '春节赠送，谢谢',
  });
  const row = await h.services.store.db
    .selectFrom('ledger')
    .select(['id', 'created_at'])
    .where('ref', '=', `csv-zh:${u.userId}`)
    .executeTakeFirstOrThrow();
  const res = await h.client.get(
    `/console/api/admin/exports/ledger.csv?user_id=${u.userId}&tz=Asia/Tokyo&lang=zh`,
    a.headers,
  );
  t.equal(res.status, 200);
  const local = localClock('Asia/Tokyo')(Number(row.created_at));
  t.equal(
    res.text,
    '\uFEFF编号,用户编号,用户邮箱,时间（Asia/Tokyo）,类型,金额（TOKEN）,变动后余额（TOKEN）,关联,接口,备注\r\n' +
      `${row.id},${u.userId},zhang.san@example.cn,${local},grant,3,3,csv-zh:${u.userId},,春节赠送，谢谢\r\n`,
  );
  t.ok(
    Math.abs(Date.parse(`${local!.replace(' ', 'T')}+09:00`) - Number(row.created_at)) < 1000,
    'the local time is the stored instant',
  );
  t.ok(Number(row.created_at) >= NOW - 60_000);
});

t.test('localClock: seconds within a cached minute, zones and null', async (t) => {
  const shanghai = localClock('Asia/Shanghai');
  t.equal(shanghai(Date.UTC(2026, 11, 31, 15, 59, 58)), '2026-12-31 23:59:58');
  t.equal(shanghai(Date.UTC(2026, 11, 31, 15, 59, 59, 999)), '2026-12-31 23:59:59', 'same minute, from the cache');
  t.equal(shanghai(Date.UTC(2026, 11, 31, 16, 0, 0)), '2027-01-01 00:00:00', 'the next minute is the next year');
  t.equal(shanghai(null), null);
  t.equal(localClock('Asia/Kolkata')(Date.UTC(2026, 0, 1, 0, 0, 7)), '2026-01-01 05:30:07', 'half-hour offsets');
  t.equal(localClock('UTC')('1767225600000'), '2026-01-01 00:00:00', 'numbers stored as strings (PostgreSQL bigint)');
});

t.test('localClock agrees with Intl across daylight-saving switches, half-hour and 45-minute zones', async (t) => {
  for (const tz of ['America/New_York', 'America/St_Johns', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Europe/London']) {
    const clock = localClock(tz);
    const intl = new Intl.DateTimeFormat('sv-SE', { timeZone: tz, dateStyle: 'short', timeStyle: 'medium' });
    const wrong: string[] = [];
    // Every 7 min 13 s through 2026 (both switches of each zone), rows in time order as an export reads them.
    for (let ms = Date.UTC(2026, 0, 1); ms < Date.UTC(2027, 0, 1); ms += 433_000) {
      if (clock(ms) !== intl.format(new Date(ms))) wrong.push(new Date(ms).toISOString());
    }
    t.same(wrong.slice(0, 3), [], tz);
  }
});
