// Admin overview card: which operations are sold and, for those that are not configured, exactly which settings
// (environment variables) to set. Customers only ever see "unavailable"; the reason lives here and in the log.

import { get } from '../api.js';
import { h } from '../dom.js';
import { t } from '../i18n/index.js';
import { opName } from '../op-text.js';
import { stackOnPhone } from '../stack-table.js';
import type { Reply } from '../types.js';
import { badge, card, table } from '../ui.js';

/** What the card reads of an operation: availability and, when unavailable, one list of missing settings per way
 * to configure it. */
type OperationStatus = Reply<'adminOperations'>['operations'][number];

export async function availabilityCard(): Promise<HTMLElement> {
  const { operations } = await get<Reply<'adminOperations'>>('admin/operations');
  const fix = (o: OperationStatus): HTMLElement | string =>
    o.available
      ? ''
      : h(
          'span',
          { class: 'small' },
          t('admin.setOneOf'),
          ' ',
          o.missing.map((group, i) => [
            i > 0 ? ` ${t('admin.or')} ` : '',
            group.map((name, j) => [j > 0 ? ' + ' : '', h('code', null, name)]),
          ]),
        );
  return card(
    t('admin.availability'),
    // One card per operation on a phone: as a table, the settings that enable one sat past the right edge.
    stackOnPhone(
      table(
        [t('col.operation'), t('col.name'), t('col.status'), t('admin.toFix')],
        operations.map((o) => [
          h('code', null, o.code),
          opName(o),
          o.available ? badge(t('admin.opAvailable'), 'ok') : badge(t('admin.opUnavailable'), 'err'),
          fix(o),
        ]),
        t('common.empty'),
        'admin-availability',
      ),
    ),
  );
}
