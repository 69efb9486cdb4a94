// plan.expiring and key.expiring: the scheduler queues each notice once (also across processes), only inside
// the notice window, and again when the end date moves.
import t from 'tap';
import { NOTICE_WINDOW_MS, sendExpiryNotices } from '../../core/notify/expiry-notices.js';
import type { Webhooks } from '../../core/notify/webhooks/webhooks.js';
import { consoleUser, subscribe } from '../console/support.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';
import { HOOK_HOST, manualClock, type Receiver, startReceiver, wireWebhooks } from './support.js';

let h: TestApp;
let rx: Receiver;
let webhooks: Webhooks;
const clock = manualClock(Date.now());
t.before(async () => {
  h = await createTestApp();
  rx = await startReceiver();
  ({ webhooks } = wireWebhooks(h, rx, clock));
});
t.teardown(async () => {
  await rx.close();
  await h.close();
});

t.test('a key and a plan ending inside the window are announced once each', async (t) => {
  const db = h.services.store.db;
  const now = clock.now;
  const u = await consoleUser(h, 1, { expires_at: now + NOTICE_WINDOW_MS - 60_000 });
  const later = await h.client.post(
    '/console/api/keys',
    { name: 'later', expires_at: new Date(now + NOTICE_WINDOW_MS + 48 * 3600_000).toISOString() },
    u.headers,
  );
  t.equal(later.status, 201);
  await subscribe(h, u.userId, 'basic', 2);
  await h.client.post(
    '/console/api/webhooks',
    { url: `http://${HOOK_HOST}/exp`, events: ['plan.expiring', 'key.expiring'] },
    u.headers,
  );

  t.equal(await sendExpiryNotices(db, webhooks, now), 2);
  t.equal(await sendExpiryNotices(db, webhooks, now + 3600_000), 0, 'never twice');
  await webhooks.tick();
  const bodies = rx.received
    .map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> })
    .sort((a, b) => a.type.localeCompare(b.type));
  t.same(
    bodies.map((b) => b.type),
    ['key.expiring', 'plan.expiring'],
  );
  t.match(bodies[0].data, {
    user_id: u.userId,
    key_id: u.keyId,
    key_name: 'test',
    expires_at: new Date(now + NOTICE_WINDOW_MS - 60_000).toISOString(),
  });
  t.match(bodies[1].data, { user_id: u.userId, email: u.email, plan_id: 'basic' });

  // A renewal moves the end date: a new notice when the new date comes inside the window.
  await db
    .updateTable('api_keys')
    .set({ expires_at: now + NOTICE_WINDOW_MS - 30_000 })
    .where('id', '=', u.keyId)
    .execute();
  t.equal(await sendExpiryNotices(db, webhooks, now), 1);
});
