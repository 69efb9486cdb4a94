// The sign-up trial of the shipped operations.yaml (`signup.trial_tokens`): on a default install a new customer
// registers, makes a key and gets a 200 from /api/phone with no operator action; the grant is one ledger row;
// the offer is public (/console/api/offer, the front page); 0 turns it off, closed sign-up hides it, and with
// email verification it waits for the verified mailbox. Settings come from the environment the README's
// `npm start` has: nothing but PORT and DATA_DIR.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import t from 'tap';
import { readAccountSettings } from '../../../core/config/account-env.js';
import { readSettings } from '../../../core/config/env.js';
import { createTestApp } from '../../helpers/create-test-app.js';

const SHIPPED = readFileSync('operations.yaml', 'utf8');
const DEFAULT_ENV = { PORT: '8080', DATA_DIR: '/tmp/unused' };

function shippedApp(yaml = SHIPPED, env: NodeJS.ProcessEnv = DEFAULT_ENV) {
  const settings = readSettings(env);
  return createTestApp({
    operationsYaml: yaml,
    pluginDirs: [resolve('plugins')],
    settings: { payments: settings.payments, accounts: settings.accounts },
  });
}

t.test('default install: register -> key -> GET /api/phone is 200, paid from the 1 TOKEN trial', async (t) => {
  const h = await shippedApp();
  t.teardown(() => h.close());
  t.same((await h.client.get('/console/api/offer')).body, { trial_tokens: 1 });
  const email = `first-${Date.now()}@example.com`;
  const reg = await h.client.post('/console/api/register', { email, password: 'firstTime2026' });
  t.equal(reg.status, 201);
  const userId = reg.body.user.id as number;
  const headers = { authorization: `Bearer ${reg.body.token}` };
  const key = await h.client.post('/console/api/keys', { name: 'first' }, headers);
  t.equal(key.status, 201);
  const call = await h.client.get('/api/phone?phone=13800138000', { 'X-API-Key': key.body.secret });
  t.equal(call.status, 200);
  t.match(call.body, { success: true, data: { phone: '13800138000', province: '北京' }, deducted: 0.005 });
  t.equal(call.body.remaining, 0.995);
  t.same(
    (await h.ledger(userId)).map((r) => [r.amount, r.kind, r.ref, r.balance_after]),
    [
      [1_000_000, 'grant', `trial:${userId}`, 1_000_000],
      [-5_000, 'charge', call.body.request_id, 995_000],
    ],
  );
  t.same(await h.balance(userId), { balance: 995_000, held: 0 });
  // Signing up again with the same password is a login: no second trial.
  t.equal((await h.client.post('/console/api/register', { email, password: 'firstTime2026' })).status, 201);
  t.equal((await h.ledger(userId)).length, 2);
  await h.assertReconciled();
});

t.test('the front page tells visitors of the trial, in their language', async (t) => {
  const h = await shippedApp();
  t.teardown(() => h.close());
  const zh = await h.client.get('/?lang=zh');
  t.match(zh.text, '<p class="offer" data-offer>注册即送 1 TOKEN，无需充值即可试用。</p>');
  const en = await h.client.get('/?lang=en');
  t.match(en.text, '<p class="offer" data-offer>1 TOKEN free on sign-up: try any operation before you top up.</p>');
});

t.test('trial_tokens: 0 turns it off: no offer, no ledger row, the first call is 402', async (t) => {
  const h = await shippedApp(SHIPPED.replace('trial_tokens: 1', 'trial_tokens: 0'));
  t.teardown(() => h.close());
  t.same((await h.client.get('/console/api/offer')).body, { trial_tokens: 0 });
  t.notMatch((await h.client.get('/?lang=en')).text, 'data-offer');
  const reg = await h.client.post('/console/api/register', {
    email: `none-${Date.now()}@example.com`,
    password: 'abc12345',
  });
  t.equal(reg.status, 201);
  t.same(await h.ledger(reg.body.user.id), []);
  const key = await h.client.post('/console/api/keys', { name: 'k' }, { authorization: `Bearer ${reg.body.token}` });
  const call = await h.client.get('/api/phone?phone=13800138000', { 'X-API-Key': key.body.secret });
  t.equal(call.status, 402);
  t.equal(call.body.error.code, 'INSUFFICIENT_BALANCE');
});

t.test('TRIAL_CREDIT overrides the file; closed sign-up offers nothing', async (t) => {
  const h = await shippedApp(SHIPPED, { ...DEFAULT_ENV, TRIAL_CREDIT: '2.5' });
  t.teardown(() => h.close());
  t.same((await h.client.get('/console/api/offer')).body, { trial_tokens: 2.5 });
  const closed = await shippedApp(SHIPPED, { ...DEFAULT_ENV, REGISTRATION: 'closed' });
  t.teardown(() => closed.close());
  t.same((await closed.client.get('/console/api/offer')).body, { trial_tokens: 0 });
  t.notMatch((await closed.client.get('/?lang=zh')).text, 'data-offer');
});

t.test('with email verification the trial arrives at verification, once', async (t) => {
  const settings = readSettings(DEFAULT_ENV);
  const h = await createTestApp({
    operationsYaml: SHIPPED,
    pluginDirs: [resolve('plugins')],
    settings: {
      payments: settings.payments,
      accounts: readAccountSettings({ REQUIRE_EMAIL_VERIFICATION: 'true' }, 8080),
    },
  });
  t.teardown(() => h.close());
  const email = `verify-${Date.now()}@example.com`;
  const reg = await h.client.post('/console/api/register', { email, password: 'abc12345' });
  t.equal(reg.status, 201);
  // With verification on, sign-up answers alike for new and known emails, so it names no user.
  const { id: userId } = await h.services.store.db
    .selectFrom('users')
    .select('id')
    .where('email', '=', email)
    .executeTakeFirstOrThrow();
  t.same(await h.ledger(userId), [], 'nothing before the mailbox is proven');
  const row = await h.services.store.db
    .selectFrom('mail_outbox')
    .selectAll()
    .where('to_addr', '=', email)
    .executeTakeFirstOrThrow();
  const token = /\/console\/verify\?token=([a-z]{2}_[A-Za-z0-9_-]{43})/.exec(row.text_body)?.[1] ?? '';
  t.same((await h.client.post('/console/api/email/verify', { token })).body, { verified: true });
  t.same(
    (await h.ledger(userId)).map((r) => [r.amount, r.kind, r.ref]),
    [[1_000_000, 'grant', `trial:${userId}`]],
  );
  await h.assertReconciled();
});

t.test('plans and packages answer in the caller language, both under text', async (t) => {
  const h = await shippedApp();
  t.teardown(() => h.close());
  const zh = await h.client.get('/console/api/plans', { 'accept-language': 'zh-CN' });
  t.match(zh.body.plans[0], {
    id: 'starter',
    name: '入门版',
    description: '每个接口每天 1,000 次免费调用，同时最多 3 个，缓存命中免费',
    text: { en: { name: 'Starter' } },
  });
  const en = await h.client.get('/console/api/packages', { 'accept-language': 'en' });
  t.match(en.body.packages[1], {
    id: 't100',
    name: '100 TOKEN (+5 bonus)',
    text: { zh: { name: '100 TOKEN（加赠 5）' } },
  });
  t.match((await h.client.get('/console/api/packages', { 'accept-language': 'zh' })).body.packages[1].name, '加赠');
});
