// The operator's whole-table exports: users, orders and the ledger as streamed CSV files, newest first, one export
// per admin at a time (core/console/api/admin-exports.ts).
import { csvLocaleQuery, csvText, timeBound } from './csv.js';
import { defineRoutes, type RouteDef } from './define.js';
import { idQuery, query, upTo } from './schema.js';

export const EXPORT_MAX_ROWS = 1_000_000;

const exportRoute = (name: 'users' | 'orders' | 'ledger') =>
  ({
    method: 'GET',
    path: `/console/api/admin/exports/${name}.csv`,
    summary: `All ${name} as streamed CSV, newest first`,
    auth: 'admin',
    query: query({
      from: timeBound('ISO date/time or epoch ms (inclusive)'),
      to: timeBound('ISO date/time or epoch ms (exclusive)'),
      user_id: idQuery('one user (orders, ledger)'),
      limit: upTo(EXPORT_MAX_ROWS, 'rows, 1-1000000'),
      ...csvLocaleQuery,
    }),
    responses: { 200: csvText },
    produces: 'text/csv',
    errors: ['CONCURRENCY_LIMITED'],
  }) satisfies Omit<RouteDef, 'id'>;

export const EXPORTS = defineRoutes({
  adminExport_users: exportRoute('users'),
  adminExport_orders: exportRoute('orders'),
  adminExport_ledger: exportRoute('ledger'),
});
