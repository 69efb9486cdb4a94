// The canary block of operations.yaml (its shape, defaults and errors), the failure classes read from plugin
// failures, and the verdict on one answer: schema and JSONata assertions naming the field that broke.

import { readFileSync } from 'node:fs';
import t from 'tap';
import { probedProviders, usableProviders } from '../../core/config/canary-config.js';
import { parseOperationsConfig } from '../../core/config/operations-loader.js';
import { judge } from '../../core/health/canary-check.js';
import { classifyFailure } from '../../core/sandbox/failure-class.js';

const real = parseOperationsConfig('/x/operations.yaml', readFileSync('operations.yaml', 'utf8'));
const op = (code: string) => real.operations.find((o) => o.code === code)!;

t.test('the default config has canaries for every operation, jiexi one per platform', async (t) => {
  for (const o of real.operations) t.ok(o.canary, `${o.code} has a canary`);
  const jiexi = op('jiexi').canary!;
  t.same(
    jiexi.samples.map((s) => s.platform),
    ['douyin', 'kuaishou', 'xiaohongshu', 'bilibili'],
  );
  t.equal(jiexi.intervalMs, 1_800_000);
  t.equal(jiexi.failuresToDown, 2);
  t.equal(jiexi.successesToRecover, 1);
  t.equal(jiexi.schema, true);
  t.same(op('phone').canary!.samples, [
    { platform: '', input: { phone: '13800138000' }, assert: ["province = '北京'", "carrier = '中国移动'"] },
  ]);
});

const withCanary = (block: string): string =>
  readFileSync('test/fixtures/operations.test.yaml', 'utf8').replace(
    /( {2}- code: echo\n)/,
    `$1    canary:\n${block
      .split('\n')
      .map((l) => `      ${l}`)
      .join('\n')}\n`,
  );

t.test('a bad canary block is named by file, code and pointer', async (t) => {
  t.throws(() => parseOperationsConfig('/x/ops.yaml', withCanary('interval: 5\nsamples: [{ input: {} }]')), {
    message: 'ops.yaml: operation "echo" at /operations/0/canary/interval: must be >= 60',
  });
  t.throws(() => parseOperationsConfig('/x/ops.yaml', withCanary('samples: []')), {
    message: 'ops.yaml: operation "echo" at /operations/0/canary/samples: must NOT have fewer than 1 items',
  });
  t.throws(() => parseOperationsConfig('/x/ops.yaml', withCanary('samples: [{ input: {}, assert: ["a = ("] }]')), {
    message: /^ops.yaml: operation "echo" at \/operations\/0\/canary\/samples\/0\/assert\/0: not a JSONata expression/,
  });
  t.throws(
    () =>
      parseOperationsConfig(
        '/x/ops.yaml',
        withCanary('samples: [{ platform: a, input: {} }, { platform: a, input: {} }]'),
      ),
    { message: 'ops.yaml: operation "echo" at /operations/0/canary/samples/1/platform: platform "a" twice' },
  );
  const ok = parseOperationsConfig('/x/ops.yaml', withCanary('samples: [{ input: { a: 1 } }]'));
  t.same(ok.operations[0].canary, {
    intervalMs: 1_800_000,
    failuresToDown: 2,
    successesToRecover: 1,
    schema: true,
    samples: [{ platform: '', input: { a: 1 }, assert: [] }],
    providers: [],
  });
});

t.test('canary providers: options of the operation, probed alone when all are set and two or more are', async (t) => {
  t.throws(
    () =>
      parseOperationsConfig(
        '/x/ops.yaml',
        withCanary('samples: [{ input: {} }]\nproviders: { one: [greeting, nope] }'),
      ),
    {
      message:
        'ops.yaml: operation "echo" at /operations/0/canary/providers/one: "nope" is not one of the operation\'s options',
    },
  );
  const yaml = withCanary('samples: [{ input: {} }]\nproviders: { one: [greeting], two: [greeting, secret] }');
  const parsed = parseOperationsConfig('/x/ops.yaml', yaml, {});
  const echo = parsed.operations[0];
  t.same(echo.canary!.providers, [
    { id: 'one', options: ['greeting'] },
    { id: 'two', options: ['greeting', 'secret'] },
  ]);
  t.same(usableProviders(echo), ['one'], 'TEST_SECRET is not set: two is not usable');
  t.same(probedProviders(echo), [], 'one alone: the failover probe asks just it');
  const full = parseOperationsConfig('/x/ops.yaml', yaml, { TEST_SECRET: 's' }).operations[0];
  t.same(usableProviders(full), ['one', 'two']);
  t.same(probedProviders(full), ['one', 'two']);
  t.same(
    op('kuaid').canary!.providers.map((p) => p.id),
    ['kuaidi100', 'kdniao'],
  );
});

t.test('failure classes from plugin failures', async (t) => {
  const cases: Array<[string, string, string | null]> = [
    ['UPSTREAM_TIMEOUT', 'douyin: fetch timed out: 10000 ms', 'timeout'],
    ['NOT_FOUND', 'Kuaishou: the video does not exist or was deleted (result 223).', 'sample_gone'],
    [
      'UPSTREAM_FAILED',
      '小红书安全限制，请稍后重试 (Xiaohongshu note page: bot wall, captcha, HTTP 461; retry later).',
      'risk_control',
    ],
    ['UPSTREAM_FAILED', 'Xiaohongshu note page: bot wall, security page, error_code 300031', 'risk_control'],
    ['UPSTREAM_FAILED', 'Bilibili view API: throttled (code -412 request was banned).', 'risk_control'],
    ['UPSTREAM_FAILED', 'parcel providers failed (kuaidi100: kuaidi100 returnCode 601 POLL:KEY已过期)', 'credential'],
    ['UPSTREAM_FAILED', 'Bilibili view API: HTTP 403.', 'credential'],
    ['UPSTREAM_FAILED', 'parcel providers failed (kdniao: 没有可用套餐)', 'quota'],
    ['UPSTREAM_FAILED', 'douyin: fetch failed: getaddrinfo ENOTFOUND www.iesdouyin.com', 'network'],
    [
      'UPSTREAM_FAILED',
      'Xiaohongshu note page: __INITIAL_STATE__ has no note.noteDetailMap (changed shape).',
      'shape_changed',
    ],
    ['UPSTREAM_FAILED', 'Bilibili view API: code -404 odd', 'upstream_error'],
    ['INVALID_INPUT', 'no link', null],
    ['RATE_LIMITED', 'slow down', null],
  ];
  for (const [code, message, cls] of cases) t.equal(classifyFailure(code, message), cls, message);
});

t.test('judge: schema and assertions name the field, errors get their class', async (t) => {
  const jiexi = op('jiexi');
  const sample = jiexi.canary!.samples[0];
  const good: Record<string, unknown> = { ...jiexi.responseExample!, platform: 'douyin' };
  t.same(await judge(200, { success: true, data: good }, sample, jiexi.response, true), {
    ok: true,
    class: null,
    field: null,
    detail: 'ok',
  });
  const { title: _gone, ...noTitle } = good;
  t.same(await judge(200, { success: true, data: noTitle }, sample, jiexi.response, true), {
    ok: false,
    class: 'shape_changed',
    field: 'title',
    detail: 'the answer has no title (response schema)',
  });
  const badAuthor = { ...good, author: { ...(good.author as object), name: 5 } };
  t.match(await judge(200, { success: true, data: badAuthor }, sample, jiexi.response, true), {
    ok: false,
    class: 'shape_changed',
    field: 'author.name',
  });
  // Without the schema check, the assertion that reads the missing field names it.
  const noUrl = { ...good, url: null, images: [] };
  t.same(await judge(200, { success: true, data: noUrl }, sample, jiexi.response, false), {
    ok: false,
    class: 'shape_changed',
    field: 'url',
    detail: 'assertion url != null or $count(images) > 0 is not true',
  });
  t.same(
    await judge(
      502,
      {
        success: false,
        error: {
          code: 'UPSTREAM_FAILED',
          message: 'Kuaishou share page: captcha required, IP rate-limited (result 2001).',
        },
      },
      sample,
      jiexi.response,
      true,
    ),
    {
      ok: false,
      class: 'risk_control',
      field: null,
      detail: 'UPSTREAM_FAILED: Kuaishou share page: captcha required, IP rate-limited (result 2001).',
    },
  );
});
