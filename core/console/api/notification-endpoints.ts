// The console routes of operator records (admin drill-down, adjustments, audit) as data, for the OpenAPI document
// and request validation.
import { type ConsoleEndpoint, int, obj, pageOf, positiveTokens, text } from './endpoint-schemas.js';

const ADJUST_NOT_POSITIVE = "'amount' must be a positive TOKEN amount; 'kind' says whether it is a refund or a debit.";

/** Operator records: the drill-down of one user, adjustments, the audit log. */
export function notificationEndpoints(): ConsoleEndpoint[] {
  return [
    {
      id: 'adminUserOverview',
      method: 'GET',
      path: '/console/api/admin/users/:id/overview',
      summary: 'One user: keys, recent calls, ledger, orders, plans and audit',
      auth: 'admin',
    },
    {
      id: 'adminAdjust',
      method: 'POST',
      path: '/console/api/admin/users/:id/adjustments',
      summary: 'Refund or debit with a reason (never below the available balance)',
      auth: 'admin',
      body: obj(
        { kind: { enum: ['refund', 'debit'] }, amount: positiveTokens(ADJUST_NOT_POSITIVE), reason: text(500) },
        ['kind', 'amount', 'reason'],
      ),
      status: 201,
    },
    {
      id: 'adminAudit',
      method: 'GET',
      path: '/console/api/admin/audit',
      summary: 'Audit log, newest first',
      auth: 'admin',
      query: [
        { name: 'user_id', description: 'the account concerned', schema: int },
        { name: 'q', description: 'the accounts concerned: email contains, key prefix (sk_...) or user id' },
        { name: 'actor_id', description: 'who did it', schema: int },
        { name: 'action', description: 'e.g. key.rotate' },
        ...pageOf(500),
      ],
    },
  ];
}
