// Low-balance alerts: fired by the charge that crosses the line (once per crossing), re-armed by a top-up,
// sent to a signed webhook, WeCom / DingTalk / Feishu bots in their documented bodies, and by mail.
import { createHmac } from 'node:crypto';
import t from 'tap';
import type { BalanceAlerts } from '../../core/notify/alerts/balance-alerts.js';
import { verifySignature } from '../../core/notify/webhooks/signing.js';
import type { Webhooks } from '../../core/notify/webhooks/webhooks.js';
import { admin, consoleUser, subscribe } from '../console/support.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';
import { HOOK_HOST, manualClock, type Receiver, startReceiver, wireWebhooks } from './support.js';

let h: TestApp;
let rx: Receiver;
let alerts: BalanceAlerts;
let webhooks: Webhooks;
const clock = manualClock();
const mails: Array<{ to: string; subject: string; text: string }> = [];
t.before(async () => {
  h = await createTestApp();
  rx = await startReceiver();
  ({ alerts, webhooks } = wireWebhooks(h, rx, clock, async (m) => {
    mails.push(m);
    return { ok: true };
  }));
});
t.afterEach(() => h.assertReconciled());
t.teardown(async () => {
  await rx.close();
  await h.close();
});

const put = (path: string, body: unknown, headers: Record<string, string>) =>
  h.client.request(path, { method: 'PUT', body, headers });
async function call(key: string): Promise<number> {
  const res = await h.client.get('/api/echo?msg=x', { 'X-API-Key': key });
  if (res.status !== 200) throw new Error(`call: ${res.status} ${res.text}`);
  await alerts.idle();
  return res.body.remaining as number;
}
async function flush(): Promise<void> {
  await alerts.idle();
  await webhooks.tick();
}

t.test('settings are validated and saved; the line is exact micro-TOKEN', async (t) => {
  const u = await consoleUser(h, 1);
  t.same((await h.client.get('/console/api/alerts', u.headers)).body.alerts, {
    balance_threshold: null,
    quota_percent: null,
    email: false,
    armed: true,
    last_fired_at: null,
  });
  const bad: Array<[unknown, string]> = [
    [{ balance_threshold: 0 }, "'balance_threshold' must be a positive TOKEN amount, or null for no alert."],
    [
      { balance_threshold: '1.0000001' },
      "'balance_threshold' must be a TOKEN amount from -1000000000 to 1000000000 with at most 6 decimals, e.g. 12.5.",
    ],
    [{ quota_percent: 100 }, "'quota_percent' must be an integer from 1 to 99."],
    [{ email: 'yes' }, "'email' must be true or false."],
    [{ threshold: 1 }, "Unknown field 'threshold'; allowed: balance_threshold, quota_percent, email."],
  ];
  for (const [body, message] of bad) {
    const res = await put('/console/api/alerts', body, u.headers);
    t.equal(res.status, 400);
    t.same(res.body.error, { code: 'INVALID_INPUT', message });
  }
  const ok = await put('/console/api/alerts', { balance_threshold: '2.5', quota_percent: 20, email: true }, u.headers);
  t.same(ok.body.alerts, { balance_threshold: 2.5, quota_percent: 20, email: true, armed: true, last_fired_at: null });
  const row = await h.services.store.db
    .selectFrom('alert_settings')
    .selectAll()
    .where('user_id', '=', u.userId)
    .executeTakeFirstOrThrow();
  t.equal(Number(row.balance_threshold), 2_500_000);
  const audit = await h.services.store.db
    .selectFrom('audit_log')
    .selectAll()
    .where('subject_user_id', '=', u.userId)
    .execute();
  t.equal(audit.length, 1);
  t.match(audit[0], { actor_role: 'user', action: 'alerts.update', target_type: 'alerts', ip: '127.0.0.1' });
  t.same(JSON.parse(audit[0].detail).to, ok.body.alerts);
});

t.test(
  'the crossing charge fires once to every channel; a top-up re-arms; the next crossing fires again',
  async (t) => {
    const a = await admin(h);
    const u = await consoleUser(h, '0.05');
    await put('/console/api/alerts', { balance_threshold: 0.03, email: true }, u.headers);
    const std = await h.client.post(
      '/console/api/webhooks',
      { url: `http://${HOOK_HOST}/std`, events: ['balance.low'] },
      u.headers,
    );
    await h.client.post(
      '/console/api/webhooks',
      { url: `http://${HOOK_HOST}/wecom`, kind: 'wecom', events: ['balance.low'] },
      u.headers,
    );
    await h.client.post(
      '/console/api/webhooks',
      {
        url: `http://${HOOK_HOST}/robot/send?access_token=abc`,
        kind: 'dingtalk',
        bot_secret: 'SECdemo',
        events: ['balance.low'],
      },
      u.headers,
    );
    await h.client.post(
      '/console/api/webhooks',
      { url: `http://${HOOK_HOST}/feishu`, kind: 'feishu', events: ['balance.low'] },
      u.headers,
    );
    rx.fallbackBody = '{"errcode":0,"errmsg":"ok","code":0}';

    t.equal(await call(u.key), 0.04);
    t.equal(await call(u.key), 0.03, 'landing exactly on the line is not below it');
    await flush();
    t.equal(rx.received.length, 0, 'no alert above or on the line');
    t.equal(await call(u.key), 0.02, 'this charge crosses');
    await flush();
    t.equal(rx.received.length, 4, 'one message per channel');
    const byPath = Object.fromEntries(rx.received.map((r) => [r.url.split('?')[0], r]));
    const stdMsg = byPath['/std'];
    t.ok(verifySignature(std.body.secret, stdMsg.headers, stdMsg.body));
    t.same(JSON.parse(stdMsg.body), {
      type: 'balance.low',
      timestamp: new Date(clock.now).toISOString(),
      data: {
        user_id: u.userId,
        email: u.email,
        balance: 0.02,
        threshold: 0.03,
        at: new Date(clock.now).toISOString(),
      },
    });
    const text = `[Tollgate] 余额提醒：账户 ${u.email} 余额 0.02 TOKEN，已低于提醒线 0.03 TOKEN。\n[Tollgate] Low balance: account ${u.email} has 0.02 TOKEN, below the alert line of 0.03 TOKEN.`;
    t.same(JSON.parse(byPath['/wecom'].body), { msgtype: 'text', text: { content: text } });
    t.same(JSON.parse(byPath['/feishu'].body), { msg_type: 'text', content: { text } });
    const ding = byPath['/robot/send'];
    t.same(JSON.parse(ding.body), { msgtype: 'text', text: { content: text } });
    const q = new URL(ding.url, 'http://x').searchParams;
    t.equal(q.get('access_token'), 'abc');
    t.equal(q.get('timestamp'), String(clock.now));
    t.equal(
      q.get('sign'),
      createHmac('sha256', 'SECdemo').update(`${clock.now}\nSECdemo`).digest('base64'),
      'DingTalk signature of "timestamp\\nsecret"',
    );
    t.equal(mails.length, 1);
    t.same(
      { to: mails[0].to, subject: mails[0].subject },
      { to: u.email, subject: '余额提醒 / Low balance: 0.02 TOKEN' },
    );
    t.match((await h.client.get('/console/api/alerts', u.headers)).body.alerts, {
      armed: false,
      last_fired_at: new Date(clock.now).toISOString(),
    });

    t.equal(await call(u.key), 0.01);
    await flush();
    t.equal(rx.received.length, 4, 'below the line already: no second alert');

    // A refund by an admin lifts the balance back over the line: re-armed.
    const refund = await h.client.post(
      `/console/api/admin/users/${u.userId}/adjustments`,
      { kind: 'refund', amount: '0.05', reason: 'goodwill' },
      a.headers,
    );
    t.equal(refund.status, 201);
    await alerts.idle();
    t.match((await h.client.get('/console/api/alerts', u.headers)).body.alerts, { armed: true });
    t.equal(await call(u.key), 0.05);
    t.equal(await call(u.key), 0.04);
    t.equal(await call(u.key), 0.03);
    await flush();
    t.equal(rx.received.length, 4);
    t.equal(await call(u.key), 0.02);
    await flush();
    t.equal(rx.received.length, 8, 'the second crossing fires again');
    t.equal(mails.length, 2);
    rx.received.length = 0;
    rx.fallbackBody = 'ok';
  },
);

t.test('a bot that answers 200 with an error code is a failed attempt', async (t) => {
  const u = await consoleUser(h, '0.02');
  await put('/console/api/alerts', { balance_threshold: 0.015 }, u.headers);
  const bot = await h.client.post(
    '/console/api/webhooks',
    { url: `http://${HOOK_HOST}/wecom2`, kind: 'wecom', events: ['balance.low'] },
    u.headers,
  );
  rx.script.push({ status: 200, body: '{"errcode":93000,"errmsg":"invalid webhook url"}' });
  t.equal(await call(u.key), 0.01);
  await flush();
  const log = await h.client.get(`/console/api/webhooks/${bot.body.webhook.id}/deliveries`, u.headers);
  t.match(log.body.deliveries[0], {
    status: 'pending',
    attempts: 1,
    last_status: 200,
    last_error: 'HTTP 200: {"errcode":93000,"errmsg":"invalid webhook url"}',
  });
  t.equal(mails.length, 2, 'email off for this user');
  rx.received.length = 0;
});

t.test('no line set: charges do no alert work at all', async (t) => {
  const u = await consoleUser(h, '0.02');
  await call(u.key);
  await call(u.key);
  await flush();
  t.equal(rx.received.length, 0);
  t.equal(
    (await h.services.store.db.selectFrom('alert_settings').selectAll().where('user_id', '=', u.userId).execute())
      .length,
    0,
  );
});

t.test('plan quota: the call that leaves less than the percentage alerts once a day', async (t) => {
  const u = await consoleUser(h, 0);
  await subscribe(h, u.userId, 'basic'); // 3 free echo calls a day
  await put('/console/api/alerts', { quota_percent: 50 }, u.headers);
  const hook = await h.client.post(
    '/console/api/webhooks',
    { url: `http://${HOOK_HOST}/quota`, events: ['balance.low'] },
    u.headers,
  );
  const free = async (): Promise<void> => {
    const res = await h.client.get('/api/echo?msg=q', { 'X-API-Key': u.key });
    t.equal(res.body.deducted, 0);
    await alerts.idle();
  };
  await free(); // 2 of 3 left: 66% >= 50%
  await flush();
  t.equal(rx.received.length, 0);
  await free(); // 1 of 3 left: 33% < 50%, this call crossed
  await flush();
  t.equal(rx.received.length, 1);
  const body = JSON.parse(rx.received[0].body);
  t.same(body.data, {
    user_id: u.userId,
    email: u.email,
    reason: 'plan_quota',
    quota_left: 1,
    quota_limit: 3,
    percent: 50,
    at: new Date(clock.now).toISOString(),
  });
  t.ok(verifySignature(hook.body.secret, rx.received[0].headers, rx.received[0].body));
  await free(); // 0 left: already below, no second alert
  await flush();
  t.equal(rx.received.length, 1);
  const notices = await h.services.store.db
    .selectFrom('expiry_notices')
    .select('notice')
    .where('notice', 'like', `quota:${u.userId}:%`)
    .execute();
  t.equal(notices.length, 1, 'one notice row for the day');
  rx.received.length = 0;
});
