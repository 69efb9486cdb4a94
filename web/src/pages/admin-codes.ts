// Admin: make a batch of single-use redeem codes for a plan or package, copy them or save them as CSV, and
// see earlier batches with how many were redeemed.

import { download, get, post } from '../api.js';
import { clear, fieldValue, h } from '../dom.js';
import { dateTime, int } from '../format.js';
import { t } from '../i18n/index.js';
import type { Reply } from '../types.js';
import { actionForm, button, card, copyButton, field, input, messageSlot, notice, select, table } from '../ui.js';

export async function renderAdminCodes(main: HTMLElement): Promise<void> {
  const [plans, packages] = await Promise.all([get<Reply<'plans'>>('plans'), get<Reply<'packages'>>('packages')]);
  const items: Array<[string, string]> = [
    ...packages.packages.map(
      (p) => [`package:${p.id}`, `${t('admin.package')} · ${p.name} (${p.id})`] as [string, string],
    ),
    ...plans.plans.map((p) => [`plan:${p.id}`, `${t('admin.plan')} · ${p.name} (${p.id})`] as [string, string]),
  ];
  const msg = messageSlot();
  const created = h('div');
  const listSlot = h('div');
  const csv = (batchId: number): Promise<void> =>
    download(`admin/redeem-codes/${batchId}.csv`, `redeem-codes-${batchId}.csv`).catch((err: unknown) =>
      msg.error(err),
    );

  const load = async (): Promise<void> => {
    const batches = (await get<Reply<'adminRedeemBatches'>>('admin/redeem-codes')).batches;
    clear(
      listSlot,
      table(
        [t('col.batch'), t('col.item'), t('col.count'), t('col.redeemed'), t('col.created'), t('col.expires'), ''],
        batches.map((b) => [
          `#${b.batch_id}`,
          `${b.kind}:${b.id}`,
          int(b.count),
          int(b.redeemed),
          dateTime(b.created_at),
          dateTime(b.expires_at),
          button(t('admin.csv'), () => csv(b.batch_id), 'btn btn-small btn-ghost'),
        ]),
        t('admin.noBatches'),
        'batches-table',
      ),
    );
  };
  const submit = h(
    'button',
    { class: 'btn btn-primary', attrs: { type: 'submit', 'data-testid': 'codes-submit' } },
    t('admin.generate'),
  );
  const form = actionForm(
    'form-grid grid-3',
    submit,
    msg,
    async (form) => {
      const [kind, id] = fieldValue(form, 'item').split(':');
      const expires = fieldValue(form, 'expires_at');
      const r = await post<Reply<'adminCreateRedeemCodes'>>('admin/redeem-codes', {
        kind,
        id,
        count: Number(fieldValue(form, 'count') || 1),
        expires_at: expires ? new Date(`${expires}T23:59:59`).toISOString() : undefined,
      });
      msg.clear();
      clear(
        created,
        notice(
          'ok',
          h('strong', null, t('admin.generated', { n: r.codes.length, batch: r.batch_id })),
          h('pre', { class: 'code codes', attrs: { 'data-testid': 'generated-codes' } }, r.codes.join('\n')),
          h(
            'div',
            { class: 'row-actions' },
            copyButton(() => r.codes.join('\n'), t('admin.copyAll')),
            button(t('admin.csv'), () => csv(r.batch_id), 'btn btn-small btn-ghost'),
          ),
        ),
      );
      await load();
    },
    field(t('admin.item'), select('item', items), undefined, true),
    field(
      t('admin.count'),
      input('count', { type: 'number', min: 1, max: 1000, step: 1, value: 1 }),
      t('admin.countHint'),
      true,
    ),
    field(t('admin.expiresAt'), input('expires_at', { type: 'date' }), t('admin.expiresHint')),
    h('div', { class: 'form-actions' }, submit),
  );
  main.append(card(t('admin.newBatch'), form, msg.el, created), card(t('admin.batches'), listSlot));
  await load();
}
