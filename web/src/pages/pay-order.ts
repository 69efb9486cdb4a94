// The pay page of one order (/console/billing/orders/<id>): the next step (redirect, auto-submit form, QR code
// rendered by the server, or the operator's instructions), a live status that flips to "paid" by itself, and
// cancel / pay again. The page never decides that an order is paid: it only shows what the server says, and
// "I have paid" asks the server to query the provider.

import { get, post } from '../api.js';
import { clear, h } from '../dom.js';
import { dateTime, tokens } from '../format.js';
import { getLang, t, tMaybe } from '../i18n/index.js';
import { loadMe } from '../layout.js';
import { link, navigate } from '../router.js';
import { badge, button, card, messageSlot, notice, pageHeader, stat } from '../ui.js';
import { money, type Payment, type PayOrder } from './pay-types.js';

const POLL_MS = 3000;

export function payStatus(o: Pick<PayOrder, 'status' | 'late'>): HTMLElement {
  const kind =
    o.status === 'paid' ? 'ok' : o.status === 'pending' ? 'warn' : o.status === 'amount_mismatch' ? 'err' : 'muted';
  const text = tMaybe(`order.${o.status}`) ?? o.status;
  return badge(o.late && o.status === 'paid' ? `${text} · ${t('pay.late')}` : text, kind);
}

/** The server's SVG (from the qrcode package, no user input inside), parsed rather than assigned as HTML. */
function qrImage(svgText: string): Element {
  const doc = new DOMParser().parseFromString(svgText, 'image/svg+xml');
  const el = document.importNode(doc.documentElement, true);
  el.setAttribute('class', 'qr');
  el.setAttribute('width', '220');
  el.setAttribute('height', '220');
  el.setAttribute('data-testid', 'pay-qr');
  return el;
}

function actionView(p: Payment): HTMLElement {
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
      p.qr_svg ? qrImage(p.qr_svg) : h('code', null, a.text),
      h('p', { class: 'muted small' }, t('pay.scan')),
    );
  return notice(
    'info',
    h(
      'span',
      { attrs: { 'data-testid': 'pay-instructions' } },
      getLang() === 'zh' ? a.instructions.zh : a.instructions.en,
    ),
  );
}

/** Order the same item with the same method again (after a cancel or expiry), then open its pay page. */
export async function payAgain(o: PayOrder): Promise<void> {
  const r = await post<{ order: PayOrder }>('orders', {
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
        stat(t('pay.method'), o.instance, o.method ?? ''),
      ),
    );
    if (o.status === 'pending' && p) {
      clear(
        body,
        o.expires_at ? h('p', { class: 'muted' }, t('pay.expires', { time: dateTime(o.expires_at) })) : null,
        actionView(p),
        p.kind === 'manual' ? null : h('p', { class: 'muted small' }, t('pay.waiting')),
        h(
          'div',
          { class: 'form-actions' },
          p.kind === 'manual'
            ? null
            : button(t('pay.checkNow'), () => refresh(true), 'btn', { 'data-testid': 'pay-check' }),
          button(
            t('pay.cancel'),
            async () => {
              if (!window.confirm(t('pay.cancelAsk', { id: o.id }))) return;
              try {
                const r = await post<{ order: PayOrder }>(`orders/${o.id}/cancel`);
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
      const r = await get<{ order: PayOrder; payment: Payment | null }>(`orders/${id}${ask ? '?refresh=1' : ''}`);
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
