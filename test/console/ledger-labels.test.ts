// What a customer reads of their ledger: a label in both languages naming where the money came from, and a note
// only where it was written for them (a bought item's name). The operator's note ("(by admin N)", a provider's
// refusal, the trial and CLI texts) stays in the row and in the admin's view of the user.
import t from 'tap';
import { postEntry } from '../../core/billing/ledger.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';
import { admin, bearer, tokenFor } from './support.js';

let h: TestApp;
let a: Awaited<ReturnType<typeof admin>>;
t.before(async () => {
  h = await createTestApp();
  a = await admin(h);
});
t.afterEach(() => h.assertReconciled());
t.teardown(() => h.close());

t.test('the customer ledger: bilingual labels, no operator notes; the admin view keeps them', async (t) => {
  const u = await h.user('0', { email: 'ledger-labels@example.com' });
  const db = h.services.store.db;
  await postEntry(db, {
    userId: u.userId,
    amount: 1_000_000,
    kind: 'grant',
    ref: `trial:${u.userId}`,
    note: 'trial credit',
  });
  const grant = await h.client.post(
    '/console/api/admin/grants',
    { email: 'ledger-labels@example.com', amount: 5, reason: 'duplicate account, watch it' },
    a.headers,
  );
  t.equal(grant.status, 201);
  const deduct = await h.client.post(
    '/console/api/admin/grants',
    { email: 'ledger-labels@example.com', amount: '-1', reason: 'test credit taken back' },
    a.headers,
  );
  t.equal(deduct.status, 201);
  const refund = await h.client.post(
    `/console/api/admin/users/${u.userId}/adjustments`,
    { kind: 'refund', amount: '0.5', reason: 'outage on the 20th' },
    a.headers,
  );
  t.equal(refund.status, 201);
  const debit = await h.client.post(
    `/console/api/admin/users/${u.userId}/adjustments`,
    { kind: 'debit', amount: '0.25', reason: 'chargeback' },
    a.headers,
  );
  t.equal(debit.status, 201);
  await postEntry(db, {
    userId: u.userId,
    amount: 3_000_000,
    kind: 'package',
    ref: `order:ll-${u.userId}`,
    note: 'Starter 3',
  });
  await postEntry(db, {
    userId: u.userId,
    amount: -3_000_000,
    kind: 'refund',
    ref: 'refund:RF9-0a1b2c3d',
    note: 'buyer asked',
  });
  await postEntry(db, {
    userId: u.userId,
    amount: 3_000_000,
    kind: 'refund',
    ref: 'refund-reversal:RF9-0a1b2c3d',
    note: 'provider refused the refund',
  });

  const mine = await h.client.get('/console/api/ledger', bearer(await tokenFor(h, u.userId)));
  t.equal(mine.status, 200);
  t.strictSame(
    mine.body.entries.map((e: { kind: string; amount: number; note: string | null; label: unknown }) => [
      e.kind,
      e.amount,
      e.note,
      e.label,
    ]),
    [
      ['refund', 3, null, { zh: '退款撤回', en: 'Refund reversed' }],
      ['refund', -3, null, { zh: '订单退款', en: 'Order refund' }],
      ['package', 3, 'Starter 3', { zh: '充值包', en: 'Package' }],
      ['adjustment', -0.25, null, { zh: '客服扣减', en: 'Deduction by support' }],
      ['refund', 0.5, null, { zh: '退款', en: 'Refund' }],
      ['adjustment', -1, null, { zh: '客服扣减', en: 'Deduction by support' }],
      ['grant', 5, null, { zh: '客服赠送', en: 'Credit from support' }],
      ['grant', 1, null, { zh: '注册赠送', en: 'Sign-up credit' }],
    ],
  );
  t.notMatch(mine.text, /by admin|watch it|chargeback|provider refused|trial credit|buyer asked/);

  // The admin's view of the user: the operator's notes as written, beside the same labels.
  const seen = await h.client.get(`/console/api/admin/users/${u.userId}/overview`, a.headers);
  t.equal(seen.status, 200);
  t.strictSame(
    seen.body.ledger.map((e: { note: string | null }) => e.note),
    [
      'provider refused the refund',
      'buyer asked',
      'Starter 3',
      `chargeback (by admin ${a.userId})`,
      `outage on the 20th (by admin ${a.userId})`,
      `test credit taken back (by admin ${a.userId})`,
      `duplicate account, watch it (by admin ${a.userId})`,
      'trial credit',
    ],
  );
  t.strictSame(seen.body.ledger[6].label, { zh: '客服赠送', en: 'Credit from support' });
});
