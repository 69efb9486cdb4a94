// The number of orders waiting for an admin (manual payments to confirm), as a badge beside the admin's links:
// on the main navigation's "Admin" (seen from every page, the dashboard after log-in included) and on the
// admin area's "Orders". Confirming or cancelling an order there refreshes every badge on screen. On a phone the
// navigation strip hides the Admin link off screen, so the admin's dashboard also says it in a line.

import { get } from './api.js';
import { clear, h } from './dom.js';
import { t } from './i18n/index.js';
import { link } from './router.js';
import type { Reply } from './types.js';

const holders = new Set<HTMLElement>();

/** The server's count; the payments summary where the count route is missing; null when neither answers. */
async function pendingCount(): Promise<number | null> {
  try {
    return (await get<Reply<'adminPendingCount'>>('admin/orders/pending-count')).count;
  } catch {
    try {
      return (await get<Reply<'adminPaymentSummary'>>('admin/payments/summary')).pending;
    } catch {
      return null; // a badge is a hint: the pages themselves still load and report errors
    }
  }
}

function paint(el: HTMLElement, n: number | null): void {
  el.querySelector(':scope > .pending-count')?.remove();
  if (!n || n <= 0) return;
  el.append(
    h(
      'span',
      {
        class: 'badge badge-warn pending-count',
        attrs: { 'data-testid': el.dataset.badgeId ?? 'nav-pending-badge', title: t('admin.pendingBadge', { n }) },
      },
      String(n),
    ),
  );
}

/** Puts the badge on `el` (under the test id given) and fills it; `el` may not be on the page yet. */
export function attachPendingBadge(el: HTMLElement, testId = 'nav-pending-badge'): void {
  el.dataset.badgeId = testId;
  holders.add(el);
  void pendingCount().then((n) => paint(el, n));
}

/** Asks again and repaints every badge still on screen (those of pages left behind are forgotten). */
export async function refreshPendingBadges(): Promise<void> {
  const n = await pendingCount();
  for (const el of holders) {
    if (el.isConnected) paint(el, n);
    else holders.delete(el);
  }
}

/** For the admin's dashboard: "N orders are waiting for confirmation", linked to them; empty when none. */
export function pendingNotice(): HTMLElement {
  const slot = h('div');
  void pendingCount().then((n) => {
    if (n && n > 0)
      clear(
        slot,
        h(
          'div',
          { class: 'notice notice-info', attrs: { role: 'status', 'data-testid': 'admin-pending-notice' } },
          t('admin.pendingNotice', { n }),
          ' ',
          link('admin/orders', `${t('admin.orders')} →`),
        ),
      );
  });
  return slot;
}
