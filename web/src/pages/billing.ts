// Billing: balance, plans and packages to order (card -> payment method -> the order's pay page), a
// redeem-code box, my orders with cancel and "pay again", and the ledger (every change to the balance, newest
// first). billing/orders/<id> is the pay page of one order (pay-order.ts).

import { get, post, query } from '../api.js';
import { type Child, clear, fieldValue, h } from '../dom.js';
import { date, dateTime, int, tokens } from '../format.js';
import { getLang, t, tMaybe } from '../i18n/index.js';
import { loadMe } from '../layout.js';
import { link, navigate, type Route } from '../router.js';
import { stackOnPhone } from '../stack-table.js';
import type { Reply } from '../types.js';
import { badge, busy, button, card, field, input, messageSlot, notice, pageHeader, stat, table } from '../ui.js';
import { payAgain, payStatus, renderPayOrder } from './pay-order.js';
import { money } from './pay-types.js';

export function orderStatus(o: { status: string }): HTMLElement {
  const kind = o.status === 'paid' ? 'ok' : o.status === 'pending' ? 'warn' : 'muted';
  return badge(tMaybe(`order.${o.status}`) ?? o.status, kind);
}

function ledgerKind(kind: string): string {
  return tMaybe(`ledger.${kind}`) ?? kind;
}

type Entry = Reply<'ledger'>['entries'][number];
type Named = { text: Record<'zh' | 'en', { name: string }> };

/**
 * The detail of a ledger row in the page's language: the operation of a charge; a package's or plan's name, which
 * the server keeps as written (in English); else the server's bilingual label of the row ("Credit from support" /
 * "客服赠送"). An operator's own note (an admin's reason, a provider's refusal) never reaches this page: the server
 * sends the customer only the notes written for them (core/billing/ledger-labels.ts).
 */
export function ledgerDetail(e: Entry, items: Named[]): string {
  if (e.operation) return e.operation;
  if (e.ref.startsWith('trial:')) return t('ledger.note.trial');
  if (e.note && (e.kind === 'package' || e.kind === 'plan_grant' || e.kind === 'redeem')) {
    const item = items.find((i) => i.text.en.name === e.note || i.text.zh.name === e.note);
    return item ? item.text[getLang()].name : e.note;
  }
  return e.label[getLang()];
}

export async function renderBilling(main: HTMLElement, route?: Route): Promise<void> {
  if (route?.parts[1] === 'orders' && /^\d+$/.test(route.parts[2] ?? ''))
    return renderPayOrder(main, Number(route.parts[2]));
  const [me, plans, packages, methods] = await Promise.all([
    loadMe(true),
    get<Reply<'plans'>>('plans'),
    get<Reply<'packages'>>('packages'),
    get<Reply<'paymentMethods'>>('payment-methods'),
  ]);
  const lang = getLang();
  /** One choice per instance and channel (an EPay merchant offers Alipay and WeChat Pay). */
  const choices = methods.methods.flatMap((m) =>
    m.methods.map((c) => ({
      method: m.id,
      channel: m.methods.length > 1 ? c : undefined,
      label: m.methods.length > 1 ? `${m.label[lang]} · ${tMaybe(`channel.${c}`) ?? c}` : m.label[lang],
    })),
  );
  const chooser = h('div');
  const msg = messageSlot();
  const summary = h('div', { class: 'stats' });
  const ordersSlot = h('div');
  const ledgerSlot = h('div');
  const ledgerMore = h('div', { class: 'form-actions' });
  let ledgerRows: Child[][] = [];
  let ledgerBefore: number | null = null;

  const showSummary = (m: typeof me): void =>
    clear(
      summary,
      stat(
        t('dash.available'),
        tokens(m.available),
        m.balance !== m.available ? t('dash.heldNote', { balance: tokens(m.balance) }) : 'TOKEN',
        'billing-available',
      ),
      stat(
        t('dash.plan'),
        m.plan?.name ?? t('dash.noPlan'),
        m.plan?.ends_at ? t('dash.until', { date: date(m.plan.ends_at) }) : t('dash.payPerCall'),
      ),
    );
  const loadOrders = async (): Promise<void> => {
    const orders = (await get<Reply<'listOrders'>>('orders')).orders;
    const rows = orders.map((o) => [
      link(`billing/orders/${o.id}`, `#${o.id}`),
      o.item_name,
      money(o),
      payStatus(o),
      dateTime(o.created_at),
      dateTime(o.paid_at),
      h(
        'div',
        { class: 'row-actions' },
        o.status === 'pending' ? link(`billing/orders/${o.id}`, t('pay.open')) : null,
        o.status === 'pending'
          ? button(
              t('pay.cancel'),
              async () => {
                if (!window.confirm(t('pay.cancelAsk', { id: o.id }))) return;
                try {
                  await post(`orders/${o.id}/cancel`);
                  msg.clear();
                  await loadOrders();
                } catch (err) {
                  msg.error(err);
                }
              },
              'btn btn-small',
              { 'data-testid': `cancel-order-${o.id}` },
            )
          : null,
        o.status === 'cancelled' || o.status === 'expired'
          ? button(t('pay.payAgain'), () => payAgain(o).catch((err: unknown) => msg.error(err)), 'btn btn-small', {
              'data-testid': `pay-again-${o.id}`,
            })
          : null,
      ),
    ]);
    clear(
      ordersSlot,
      stackOnPhone(
        table(
          [
            t('col.order'),
            t('col.item'),
            t('col.amount'),
            t('col.status'),
            t('col.created'),
            t('col.paid'),
            t('col.actions'),
          ],
          rows,
          t('billing.noOrders'),
          'orders-table',
        ),
      ),
    );
  };
  const loadLedger = async (append: boolean): Promise<void> => {
    const r = await get<Reply<'ledger'>>(`ledger${query({ limit: 50, before: append ? ledgerBefore : undefined })}`);
    const rows = r.entries.map((e) => [
      dateTime(e.created_at),
      ledgerKind(e.kind),
      h('span', { class: e.amount < 0 ? 'neg' : 'pos' }, `${e.amount > 0 ? '+' : ''}${tokens(e.amount)}`),
      tokens(e.balance_after),
      h('span', { class: 'small' }, ledgerDetail(e, [...plans.plans, ...packages.packages])),
    ]);
    ledgerRows = append ? [...ledgerRows, ...rows] : rows;
    ledgerBefore = r.next_before;
    clear(
      ledgerSlot,
      table(
        [t('col.time'), t('col.kind'), t('col.amount'), t('col.balanceAfter'), t('col.detail')],
        ledgerRows,
        t('billing.noLedger'),
        'ledger-table',
      ),
    );
    clear(ledgerMore, ledgerBefore ? button(t('usage.more'), () => loadLedger(true)) : null);
  };
  const refreshAll = async (): Promise<void> => {
    showSummary(await loadMe(true));
    await Promise.all([loadOrders(), loadLedger(false)]);
  };
  const place = async (
    kind: 'plan' | 'package',
    id: string,
    choice: { method: string; channel?: string },
  ): Promise<void> => {
    try {
      const r = await post<Reply<'createOrder'>>('orders', {
        kind,
        id,
        method: choice.method,
        channel: choice.channel,
      });
      navigate(`billing/orders/${r.order.id}`);
    } catch (err) {
      msg.error(err);
    }
  };
  /** Card -> payment method (skipped when there is only one) -> the pay page. */
  const order = async (kind: 'plan' | 'package', id: string, name: string, price: number): Promise<void> => {
    if (choices.length === 1) return place(kind, id, choices[0]);
    clear(
      chooser,
      card(
        t('pay.chooseTitle'),
        h('p', { class: 'muted' }, t('pay.chooseText', { item: name, amount: `¥${tokens(price)}` })),
        h(
          'div',
          { class: 'form-actions' },
          ...choices.map((c) =>
            button(c.label, () => place(kind, id, c), 'btn btn-primary', {
              'data-testid': `pay-with-${c.method}${c.channel ? `-${c.channel}` : ''}`,
            }),
          ),
        ),
      ),
    );
    chooser.scrollIntoView({ block: 'nearest' });
  };

  const redeemBtn = h(
    'button',
    { class: 'btn btn-primary', attrs: { type: 'submit', 'data-testid': 'redeem-submit' } },
    t('billing.redeem'),
  );
  const redeemForm: HTMLFormElement = h(
    'form',
    {
      class: 'inline-form',
      on: {
        submit: (ev) => {
          ev.preventDefault();
          void busy(redeemBtn, async () => {
            try {
              const r = await post<Reply<'redeem'>>('redeem', {
                code: fieldValue(redeemForm, 'code'),
              });
              msg.ok(
                r.plan_ends_at
                  ? t('billing.redeemedPlan', { date: date(r.plan_ends_at), tokens: tokens(r.tokens) })
                  : t('billing.redeemed', { tokens: tokens(r.tokens) }),
              );
              redeemForm.reset();
              await refreshAll();
            } catch (err) {
              msg.error(err);
            }
          });
        },
      },
    },
    field(
      t('billing.code'),
      input('code', {
        autocomplete: 'off',
        spellcheck: 'false',
        placeholder: t('billing.codePlaceholder'),
        'data-testid': 'redeem-code',
      }),
    ),
    redeemBtn,
  );

  const planCards = plans.plans.map((p) =>
    h(
      'div',
      { class: 'price-card' },
      h('h3', null, p.name),
      h(
        'div',
        { class: 'price' },
        `¥${tokens(p.price)}`,
        h('span', { class: 'muted small' }, ` / ${t('billing.days', { n: p.duration_days })}`),
      ),
      p.description ? h('p', { class: 'muted small' }, p.description) : null,
      h(
        'ul',
        { class: 'features' },
        h('li', null, t('billing.perDay', { n: int(p.quota.calls_per_day) })),
        // null: no cap on free calls in flight, nothing to say.
        p.quota.concurrency === null ? null : h('li', null, t('billing.concurrency', { n: p.quota.concurrency })),
        h('li', null, p.quota.cache_free ? t('billing.cacheFree') : t('billing.cacheCharged')),
        p.grant_tokens > 0 ? h('li', null, t('billing.grant', { n: tokens(p.grant_tokens) })) : null,
        h('li', { class: 'muted small' }, p.codes.join(', ')),
      ),
      button(t('billing.subscribe'), () => order('plan', p.id, p.name, p.price), 'btn btn-primary btn-block', {
        'data-testid': `order-plan-${p.id}`,
      }),
    ),
  );
  const packageCards = packages.packages.map((p) =>
    h(
      'div',
      { class: 'price-card' },
      h('h3', null, p.name),
      h('div', { class: 'price' }, `¥${tokens(p.price)}`),
      h('p', { class: 'muted small' }, p.description || t('billing.tokensFor', { n: tokens(p.tokens) })),
      button(t('billing.buy'), () => order('package', p.id, p.name, p.price), 'btn btn-block', {
        'data-testid': `order-package-${p.id}`,
      }),
    ),
  );
  main.append(
    pageHeader(t('billing.title'), t('billing.subtitle')),
    summary,
    msg.el,
    chooser,
    card(t('billing.redeemTitle'), h('p', { class: 'muted small' }, t('billing.redeemText')), redeemForm),
    card(
      t('billing.plans'),
      planCards.length ? h('div', { class: 'price-grid' }, planCards) : notice('info', t('billing.noPlans')),
    ),
    card(
      t('billing.packages'),
      packageCards.length ? h('div', { class: 'price-grid' }, packageCards) : notice('info', t('billing.noPackages')),
    ),
    card(t('billing.orders'), ordersSlot),
    card(t('billing.ledger'), ledgerSlot, ledgerMore),
  );
  showSummary(me);
  await Promise.all([loadOrders(), loadLedger(false)]);
}
