// The operator's whole-table CSV exports (core/console/contract/exports.ts), streamed by
// core/console/api/admin-exports.ts. The query's form was checked by the schema; a real calendar date and a zone
// Intl knows are checked here.
import type { Context } from 'koa';
import type { User } from '../../accounts/users.js';
import type { Services } from '../../services.js';
import { type ExportName, sendAdminExport } from '../api/admin-exports.js';
import { csvLocale } from '../api/csv-locale.js';
import { timeOf } from '../api/input.js';
import type { QueryOf } from '../contract/define.js';
import { EXPORT_MAX_ROWS, EXPORTS } from '../contract/exports.js';
import { implement } from './mount-routes.js';

type ExportQuery = QueryOf<(typeof EXPORTS)['adminExport_users']>;

export function exportRoutes(s: Services) {
  const send =
    (name: ExportName) =>
    async ({ user, query }: { user: User; query: ExportQuery }, ctx: Context): Promise<undefined> => {
      const w = { from: timeOf(query.from, 'from'), to: timeOf(query.to, 'to'), userId: query.user_id };
      const loc = csvLocale(query, ctx.get('accept-language'));
      await sendAdminExport(ctx, s, user.id, name, w, query.limit ?? EXPORT_MAX_ROWS, loc);
      return undefined;
    };
  return implement(EXPORTS, {
    adminExport_users: send('users'),
    adminExport_orders: send('orders'),
    adminExport_ledger: send('ledger'),
  });
}
