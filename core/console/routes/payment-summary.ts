// The admin payments summary (core/console/contract/admin-payments.ts adminPaymentSummary): the pending and
// amount-mismatch badges, and each payment instance with its notify URL and when it last heard from its provider.
import type { Services } from '../../services.js';
import { iso } from '../api/present.js';
import type { ADMIN_PAYMENTS } from '../contract/admin-payments.js';
import type { ResponseOf } from '../contract/define.js';

type Summary = ResponseOf<(typeof ADMIN_PAYMENTS)['adminPaymentSummary']>;

export async function paymentSummary(s: Services): Promise<Summary> {
  const db = s.store.db;
  const count = async (status: 'pending' | 'amount_mismatch'): Promise<number> => {
    const row = await db
      .selectFrom('orders')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('status', '=', status)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  };
  const pending = await count('pending');
  const mismatched = await count('amount_mismatch');
  const instances: Summary['instances'] = [];
  for (const p of s.payments.providers.values()) {
    const last = await db
      .selectFrom('payment_log')
      .select(['created_at', 'verified', 'outcome'])
      .where('instance', '=', p.id)
      .where('source', '=', 'notify')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    const lastOk = await db
      .selectFrom('payment_log')
      .select(['created_at'])
      .where('instance', '=', p.id)
      .where('verified', '=', 1)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    instances.push({
      id: p.id,
      kind: p.kind,
      methods: [...p.methods],
      currency: p.currency,
      label: p.label,
      notify_url: p.kind === 'manual' ? null : s.payments.notifyUrl(p.id),
      refunds: Boolean(p.refund),
      last_notification_at: iso(last?.created_at),
      last_notification_ok: last ? Number(last.verified) === 1 : null,
      last_verified_at: iso(lastOk?.created_at),
    });
  }
  return { pending, amount_mismatch: mismatched, instances };
}
