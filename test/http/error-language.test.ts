// One language per answer: every code of the error catalogue, every detail core adds to one (error-details.ts)
// and the sign-up refusals, in Chinese and in English, must be wholly in that language. A Chinese text fails on a
// run of two or more English words (quoted values, identifiers such as Content-Type or /console/api/..., and
// upper-case units such as TOKEN or API are data, not words); an English text fails on any CJK character. Then
// the answers customers meet most, through the real app, in both languages.
import t, { type Test } from 'tap';
import { signUpRefusal } from '../../core/accounts/sign-up-policy.js';
import { readAccountSettings } from '../../core/config/account-env.js';
import { DETAILS } from '../../core/http/error-details.js';
import { ERROR_CODES, ERROR_TEXT, type Localized, localizedMessage } from '../../core/http/errors.js';
import type { InputProblem } from '../../core/registry/input-validator.js';
import { bearer } from '../console/support.js';
import { createTestApp } from '../helpers/create-test-app.js';

const CJK = /[\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]/;
/** Words that are data in a Chinese sentence: JSON values and encodings. */
const DATA_WORDS = new Set(['true', 'false', 'zh', 'en', 'string', 'gzip', 'deflate', 'br', 'phone', 'x']);

/** The first run of >= 2 English words in a Chinese text, or null. */
export function englishRun(text: string): string | null {
  const stripped = text
    .replace(/'[^']*'|"[^"]*"|`[^`]*`|“[^”]*”/g, ' ') // quoted values
    .split(/(\s+)/)
    // identifiers, paths, headers, versions: Content-Type, application/json, ut_..., /console/api/...
    .map((w) => (/_|^\/|[A-Za-z0-9][-./:@+=?&%#][A-Za-z0-9]/.test(w) ? ' ' : w))
    .join('')
    .replace(/\b[A-Z0-9]{2,}s?\b/g, ' ') // units and acronyms: TOKEN, API, UTF, KB
    .replace(/\b[A-Za-z]+\b/g, (w) => (DATA_WORDS.has(w) ? ' ' : w));
  const m = /[A-Za-z]+(?: +[A-Za-z]+)+/.exec(stripped);
  return m ? m[0] : null;
}

function checkPair(t: Test, what: string, pair: Localized): void {
  t.equal(englishRun(pair.zh), null, `${what} zh: ${pair.zh}`);
  t.notOk(CJK.test(pair.en), `${what} en has no CJK: ${pair.en}`);
  t.ok(CJK.test(pair.zh), `${what} zh is Chinese: ${pair.zh}`);
}

t.test('the checker itself: it catches the mixes customers saw and passes data', async (t) => {
  t.ok(englishRun('请求参数无效。（Weak password: password must contain letters and digits.）'));
  t.equal(englishRun('请先登录（Wrong email or password.）'), 'Wrong email or password');
  t.equal(englishRun("参数 'phone' 须为 string 类型，见 GET /console/api/operations 和 TOKEN"), null);
  t.equal(englishRun('请设置 Content-Type: application/json（收到 “text/plain”）。'), null);
});

t.test('every catalogue code: message and hint, zh and en, each in one language', async (t) => {
  for (const code of ERROR_CODES) {
    const x = ERROR_TEXT[code];
    checkPair(t, `${code} message`, { zh: x.zh.message, en: x.en.message });
    checkPair(t, `${code} hint`, { zh: x.zh.hint, en: x.en.hint });
    // With no detail, and with an English-only one, the Chinese answer is the catalogue's sentence alone.
    t.equal(localizedMessage(code, undefined, 'zh'), x.zh.message);
    t.equal(localizedMessage(code, 'Some English detail here.', 'zh'), x.zh.message);
    t.equal(localizedMessage(code, 'Some English detail here.', 'en'), 'Some English detail here.');
    t.equal(localizedMessage(code, '小红书 note is gone', 'en'), x.en.message, 'mixed plain text never reaches en');
  }
});

t.test('every detail core gives with a code, in both languages', async (t) => {
  const problems: InputProblem[] = [
    { kind: 'missing', name: 'phone' },
    { kind: 'unknown', name: 'phone' },
    { kind: 'format', name: 'phone' },
    {
      kind: 'format',
      name: 'phone',
      about: { en: 'Mainland mobile number, 11 digits.', zh: '中国大陆手机号，11 位。' },
    },
    { kind: 'format', name: 'phone', about: { en: 'Mainland mobile number' } },
    { kind: 'type', name: 'phone', type: 'integer' },
    { kind: 'type', name: 'phone', type: 'boolean' },
    { kind: 'type', name: 'phone', type: 'string' },
    { kind: 'enum', name: 'phone', values: 'png, jpg' },
    { kind: 'noForm', name: null },
    { kind: 'noForm', name: 'phone' },
    { kind: 'minLength', name: 'phone', limit: 8 },
    { kind: 'maxLength', name: 'phone', limit: 24 },
    { kind: 'minimum', name: 'phone', limit: 1 },
    { kind: 'maximum', name: 'phone', limit: 9 },
    { kind: 'other', name: 'phone' },
  ];
  const special: Record<string, Localized[]> = {
    ipBudget: ['login', 'register', 'keyCreate', 'passwordReset'].map((n) => DETAILS.ipBudget(n, 30)),
    failedLogins: [DETAILS.failedLogins('ip', 30), DETAILS.failedLogins('email', 30)],
    paramTwice: [DETAILS.paramTwice('phone', 'query'), DETAILS.paramTwice('phone', 'path')],
    paramNoForm: [DETAILS.paramNoForm(null), DETAILS.paramNoForm('phone')],
    paramFormat: [
      DETAILS.paramFormat('phone'),
      DETAILS.paramFormat('phone', { en: 'Mainland mobile number, 11 digits.', zh: '中国大陆手机号，11 位。' }),
    ],
    invalidParams: problems.map((p) => DETAILS.invalidParams('phone', p)),
    weakPassword: [
      'password must be at least 8 characters',
      'password must be at most 200 characters',
      'password must contain letters and digits',
    ].map((r) => DETAILS.weakPassword(r)),
  };
  let walked = 0;
  for (const [name, fn] of Object.entries(DETAILS)) {
    const samples = special[name] ?? [
      (fn as (...a: unknown[]) => Localized)(...Array.from({ length: fn.length }, () => 'x')),
    ];
    for (const pair of samples) {
      checkPair(t, name, pair);
      walked++;
    }
  }
  t.ok(walked > 60, `walked ${walked} details`);
  const domains = readAccountSettings({ REGISTRATION_EMAIL_DOMAINS: 'example.com' }, 1);
  checkPair(t, 'domain refusal', signUpRefusal(domains, 'a@b.org')!.message);
  checkPair(t, 'closed', signUpRefusal(readAccountSettings({ REGISTRATION: 'closed' }, 1), 'a@b.org')!.message);
});

t.test('through the app: the answers customers meet most, exact, in zh and en', async (t) => {
  const h = await createTestApp();
  t.teardown(() => h.close());
  const zh = { 'accept-language': 'zh-CN' };
  const en = { 'accept-language': 'en' };
  const u = await h.user(1, { email: `lang-${Date.now()}@example.com` });
  const err = (r: { status: number; body: { error: { code: string; message: string } } }) => [
    r.status,
    r.body.error.code,
    r.body.error.message,
  ];
  const login = { email: u.email, password: 'wrong-pass-1' };
  t.same(err(await h.client.post('/console/api/login', login, zh)), [401, 'INVALID_CREDENTIALS', '邮箱或密码不正确。']);
  t.same(err(await h.client.post('/console/api/login', login, en)), [
    401,
    'INVALID_CREDENTIALS',
    'Wrong email or password.',
  ]);
  const weak = { email: `weak-${Date.now()}@example.com`, password: 'onlyletters' };
  t.same(err(await h.client.post('/console/api/register', weak, zh)), [
    400,
    'INVALID_INPUT',
    '密码太弱：密码须同时包含字母和数字。',
  ]);
  t.same(err(await h.client.post('/console/api/register', weak, en)), [
    400,
    'INVALID_INPUT',
    'Weak password: password must contain letters and digits.',
  ]);
  const session = (await h.client.post('/console/api/login', { email: u.email, password: 'password123' })).body.token;
  const change = { current_password: 'wrong-pass-1', new_password: 'newPass2026' };
  const pw = (lang: Record<string, string>) =>
    h.client.post('/console/api/me/password', change, { ...bearer(session), ...lang });
  t.same(err(await pw(zh)), [401, 'WRONG_PASSWORD', '当前密码不正确。']);
  t.same(err(await pw(en)), [401, 'WRONG_PASSWORD', 'The current password is wrong.']);
  const setup = (lang: Record<string, string>) =>
    h.client.post('/console/api/me/2fa/setup', { password: 'password123' }, { ...bearer(session), ...lang });
  t.equal((await setup(zh)).status, 200);
  const enable = (lang: Record<string, string>) =>
    h.client.post('/console/api/me/2fa/enable', { code: '000000' }, { ...bearer(session), ...lang });
  t.same(err(await enable(zh)), [401, 'WRONG_2FA_CODE', '两步验证码不正确。']);
  t.same(err(await enable(en)), [401, 'WRONG_2FA_CODE', 'Wrong authentication code.']);
  const key = { 'X-API-Key': u.key };
  t.same(err(await h.client.get('/api/nosuch', { ...key, ...zh })), [
    404,
    'UNKNOWN_OPERATION',
    '没有接口 “nosuch”。全部接口见 GET /console/api/operations。',
  ]);
  t.same(err(await h.client.get('/api/echo_cached', { ...key, ...zh })), [
    400,
    'INVALID_INPUT',
    "echo_cached 的参数无效：缺少必填参数 'msg'。",
  ]);
  t.same(err(await h.client.get('/api/echo_cached', { ...key, ...en })), [
    400,
    'INVALID_INPUT',
    "Invalid input for echo_cached: missing required parameter 'msg'.",
  ]);
  const poor = await h.user(0.005);
  const broke = await h.client.get('/api/echo?msg=hi', { 'X-API-Key': poor.key, ...zh });
  t.same(err(broke), [402, 'INSUFFICIENT_BALANCE', '本次调用需 0.01 TOKEN，可用余额不足。请充值后继续。']);
  t.same(
    (await h.ledger(u.userId)).map((r) => r.kind),
    ['grant'],
    'no refusal charged anything',
  );
  t.same(await h.balance(poor.userId), { balance: 5_000, held: 0 });
});
