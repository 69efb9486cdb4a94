// The pay page of one order (/console/billing/orders/<id>): the next step (redirect, auto-submit form, QR code
// rendered by the server, or the operator's instructions), a live status that flips to "paid" by itself, and
// cancel / pay again. The page never decides that an order is paid: it only shows what the server says, and
// "I have paid" asks the server to query the provider.

import { get, post } from '../api.js';
import { clear, h } from '../dom.js';
import { dateTime, tokens } from '../format.js';
import { getLang, t, tMaybe } from '../i18n/index.js';
import { loadMe } from '../layout.js';
import { qrImage } from '../qr.js';
import { link, navigate } from '../router.js';
import type { Reply } from '../types.js';
import { badge, button, card, copyButton, messageSlot, notice, pageHeader, stat } from '../ui.js';
import { money, type Payment, type PaymentMethod, type PayOrder } from './pay-types.js';

const POLL_MS = 3000;

export function payStatus(o: Pick<PayOrder, 'status' | 'late'>): HTMLElement {
  const kind =
    o.status === 'paid' ? 'ok' : o.status === 'pending' ? 'warn' : o.status === 'amount_mismatch' ? 'err' : 'muted';
  const text = tMaybe(`order.${o.status}`) ?? o.status;
  return badge(o.late && o.status === 'paid' ? `${text} · ${t('pay.late')}` : text, kind);
}

function actionView(p: Payment, o: PayOrder): HTMLElement {
  const a = p.action;
  if (a.type === 'redirect')
    return h(
      'p',
      null,
      h(
        'a',
        { class: 'btn btn-primary', attrs: { href: a.url, rel: 'noopener', 'data-testid': 'pay-redirect' } },
        t('pay.goPay'),
      ),
    );
  if (a.type === 'form') {
    const form = h(
      'form',
      { attrs: { method: 'post', action: a.url, 'data-testid': 'pay-form' } },
      ...Object.entries(a.fields).map(([name, value]) => h('input', { attrs: { type: 'hidden', name, value } })),
      h(
        'button',
        { class: 'btn btn-primary', attrs: { type: 'submit', 'data-testid': 'pay-submit' } },
        t('pay.formSubmit'),
      ),
    );
    return form;
  }
  if (a.type === 'qrcode')
    return h(
      'div',
      { class: 'qr-box' },
      p.qr_svg ? qrImage(p.qr_svg, 'pay-qr') : h('code', null, a.text),
      h('p', { class: 'muted small' }, t('pay.scan')),
    );
  // The operator's instructions: the order's own (already in the request's language) where the server gives
  // them, else those the payment step carries in both languages.
  return notice(
    'info',
    h(
      'span',
      { class: 'pre-line', attrs: { 'data-testid': 'pay-instructions' } },
      o.instructions || (getLang() === 'zh' ? a.instructions.zh : a.instructions.en),
    ),
  );
}

/** The method in words: the instance's label as the buyer chose it (with the channel), never its id. */
function methodName(o: PayOrder, methods: PaymentMethod[]): string {
  const m = methods.find((x) => x.id === o.instance);
  const name = m?.label[getLang()] ?? tMaybe(`payKind.${o.provider}`) ?? tMaybe(`payKind.${o.instance}`) ?? o.instance;
  const channel = o.method && o.method !== 'manual' && m && m.methods.length > 1 ? tMaybe(`channel.${o.method}`) : null;
  return channel ? `${name} · ${channel}` : name;
}

/** For a manual payment: the order number to quote, what happens next, and until when it can be paid. */
function manualSteps(o: PayOrder): HTMLElement {
  return h(
    'div',
    { class: 'manual-steps' },
    h(
      'p',
      { class: 'reference' },
      h('span', { class: 'muted' }, t('pay.reference')),
      ' ',
      h('code', { class: 'ref-code', attrs: { 'data-testid': 'pay-reference' } }, String(o.id)),
      ' ',
      copyButton(() => String(o.id)),
    ),
    h('h3', { class: 'sub' }, t('pay.nextTitle')),
    h(
      'p',
      { attrs: { 'data-testid': 'pay-next' } },
      t('pay.nextManual', { item: o.tokens ? `${tokens(o.tokens)} TOKEN` : o.item_name }),
    ),
    h(
      'p',
      { class: 'muted', attrs: { 'data-testid': 'pay-expires' } },
      o.expires_at ? t('pay.expiresManual', { time: dateTime(o.expires_at) }) : t('pay.noExpiry'),
    ),
  );
}

/** Order the same item with the same method again (after a cancel or expiry), then open its pay page. */
export async function payAgain(o: PayOrder): Promise<void> {
  const r = await post<Reply<'createOrder'>>('orders', {
    kind: o.kind,
    id: o.item_id,
    method: o.instance,
    ...(o.method && o.method !== 'manual' ? { channel: o.method } : {}),
  });
  navigate(`billing/orders/${r.order.id}`);
}

export async function renderPayOrder(main: HTMLElement, id: number): Promise<void> {
  const msg = messageSlot();
  const head = h('div');
  const body = h('div');
  let timer: number | undefined;
  let last: PayOrder | null = null;

  const show = async (o: PayOrder, p: Payment | null): Promise<void> => {
    clear(
      head,
      h(
        'div',
        { class: 'stats' },
        stat(t('pay.amount'), money(o), o.item_name),
        stat(
          t('col.status'),
          h('span', { attrs: { 'data-testid': 'pay-status', 'data-status': o.status } }, payStatus(o)),
          dateTime(o.created_at),
        ),
        stat(t('pay.method'), h('span', { attrs: { 'data-testid': 'pay-method' } }, methodName(o, methods))),
      ),
    );
    if (o.status === 'pending' && p) {
      const manual = p.kind === 'manual';
      clear(
        body,
        !manual && o.expires_at ? h('p', { class: 'muted' }, t('pay.expires', { time: dateTime(o.expires_at) })) : null,
        actionView(p, o),
        manual ? manualSteps(o) : h('p', { class: 'muted small' }, t('pay.waiting')),
        h(
          'div',
          { class: 'form-actions' },
          manual ? null : button(t('pay.checkNow'), () => refresh(true), 'btn', { 'data-testid': 'pay-check' }),
          button(
            t('pay.cancel'),
            async () => {
              if (!window.confirm(t('pay.cancelAsk', { id: o.id }))) return;
              try {
                const r = await post<Reply<'cancelOrder'>>(`orders/${o.id}/cancel`);
                msg.ok(t('pay.cancelled'));
                await show(r.order, null);
              } catch (err) {
                msg.error(err);
              }
            },
            'btn btn-danger',
            { 'data-testid': 'pay-cancel' },
          ),
        ),
      );
      return;
    }
    stop();
    if (o.status === 'paid') {
      const me = await loadMe(true);
      clear(
        body,
        notice(
          'ok',
          h('strong', { attrs: { 'data-testid': 'pay-paid' } }, t('pay.paidTitle')),
          ' ',
          t('pay.paidText', { balance: tokens(me.available) }),
        ),
      );
      return;
    }
    const text =
      o.status === 'expired'
        ? t('pay.expiredText')
        : o.status === 'amount_mismatch'
          ? t('pay.mismatchText')
          : o.status === 'refunded'
            ? t('pay.refundedText')
            : t('pay.cancelled');
    clear(
      body,
      notice(o.status === 'amount_mismatch' ? 'err' : 'info', text),
      o.status === 'cancelled' || o.status === 'expired'
        ? h(
            'div',
            { class: 'form-actions' },
            button(t('pay.payAgain'), () => payAgain(o).catch((err: unknown) => msg.error(err)), 'btn btn-primary', {
              'data-testid': 'pay-again',
            }),
          )
        : null,
    );
  };

  const refresh = async (ask: boolean): Promise<void> => {
    try {
      const r = await get<Reply<'getOrder'>>(`orders/${id}${ask ? '?refresh=1' : ''}`);
      // Redraw only on a change, so a QR code or a half-filled form is not rebuilt every few seconds.
      if (!last || last.status !== r.order.status) await show(r.order, r.payment);
      last = r.order;
    } catch (err) {
      msg.error(err);
      stop();
    }
  };
  const stop = (): void => {
    if (timer !== undefined) window.clearInterval(timer);
    timer = undefined;
  };

  // The method's label in the buyer's language; without the list (an older server, a failure) its kind's name.
  const methods = await get<Reply<'paymentMethods'>>('payment-methods').then(
    (r) => r.methods,
    () => [],
  );
  main.append(
    pageHeader(t('pay.title', { id }), undefined, link('billing', t('pay.back'))),
    msg.el,
    card(null, head, body),
  );
  await refresh(false);
  if (last && (last as PayOrder).status === 'pending') {
    timer = window.setInterval(() => {
      // The page was left: stop asking.
      if (!main.isConnected) return stop();
      void refresh(true);
    }, POLL_MS);
  }
}
