// /console/api/admin/users and the audit log: find an account, open it (keys, calls, ledger, orders, plans,
// audit), disable or enable it, grant or deduct TOKEN, refund or debit with a reason, reset its password, turn
// off its 2FA; and the audit log of every change, newest first.
import { ApiKey, Call, LedgerEntry, Order, UserWithBalance } from './components.js';
import { defineRoutes } from './define.js';
import {
  answer,
  as,
  body,
  constant,
  idQuery,
  list,
  nextBefore,
  oneOf,
  orNull,
  params,
  pathId,
  positiveTokens,
  query,
  ref,
  rInt,
  rStr,
  rTime,
  rTokens,
  type Static,
  Type,
  text,
  textQuery,
  upTo,
} from './schema.js';

/** A TOKEN amount, signed (a grant adds, a deduct takes): at most 6 decimals, from -10^9 to 10^9. */
const signedTokens = as<number | string>({
  type: ['number', 'string'],
  pattern: '^\\s*-?\\d{1,10}(\\.\\d{1,6})?\\s*$',
  minimum: -1_000_000_000,
  maximum: 1_000_000_000,
  description: 'TOKEN amount, at most 6 decimals',
  'x-error': { pattern: '@tokenRange', minimum: '@tokenRange', maximum: '@tokenRange' },
  'x-rule': 'not 0; at most 6 decimals, from -1000000000 to 1000000000',
});
/** A new password: 8-200 characters with letters and digits (core/accounts/passwords.ts). */
const newPassword = as<string>({
  type: 'string',
  minLength: 8,
  maxLength: 200,
  pattern: '[A-Za-z][\\s\\S]*[0-9]|[0-9][\\s\\S]*[A-Za-z]',
  description: '8-200 characters, letters and digits',
  'x-error': {
    minLength: 'Weak password: password must be at least 8 characters.',
    pattern: 'Weak password: password must contain letters and digits.',
  },
});
export const ADJUST_NOT_POSITIVE =
  "'amount' must be a positive TOKEN amount; 'kind' says whether it is a refund or a debit.";

/** One audit row, with the emails of who did it and whom it concerns (null when unknown or gone). */
const AuditEntry = answer({
  id: rInt,
  created_at: rTime,
  actor_id: orNull(rInt),
  actor_role: oneOf(['admin', 'user', 'system']),
  action: rStr,
  target_type: rStr,
  target_id: orNull(rStr),
  subject_user_id: orNull(rInt),
  detail: Type.Unknown({ description: 'what changed (before/after values, amounts, reasons); never secrets' }),
  ip: orNull(rStr),
  actor_email: orNull(rStr),
  subject_email: orNull(rStr),
});
const user = ref('UserWithBalance', UserWithBalance);
const id = params({ id: pathId('user') });

export const ADMIN_USERS = defineRoutes({
  adminUsers: {
    method: 'GET',
    path: '/console/api/admin/users',
    summary: 'List or search users',
    auth: 'admin',
    query: query({
      q: textQuery('email contains, key prefix (sk_...) or user id'),
      limit: upTo(500, 'page size, 1-500'),
    }),
    responses: { 200: answer({ users: list(user) }) },
    links: {
      adminUser: {
        operationId: 'adminUser',
        parameters: { id: '$response.body#/users/0/id' },
        description: 'The first user found',
      },
      adminUserOverview: {
        operationId: 'adminUserOverview',
        parameters: { id: '$response.body#/users/0/id' },
        description: 'Their keys, calls, ledger, orders and audit',
      },
    },
  },
  adminUser: {
    method: 'GET',
    path: '/console/api/admin/users/:id',
    summary: 'One user',
    auth: 'admin',
    params: id,
    responses: { 200: answer({ user }) },
  },
  adminUpdateUser: {
    method: 'PATCH',
    path: '/console/api/admin/users/:id',
    summary: 'Disable or enable a user',
    auth: 'admin',
    params: id,
    body: body({ status: oneOf(['active', 'disabled']) }),
    responses: { 200: answer({ user }) },
  },
  adminUserOverview: {
    method: 'GET',
    path: '/console/api/admin/users/:id/overview',
    summary: 'One user: keys, recent calls, ledger, orders, plans and audit',
    auth: 'admin',
    params: id,
    responses: {
      200: answer({
        user,
        keys: list(ref('ApiKey', ApiKey)),
        calls: list(ref('Call', Call)),
        ledger: list(ref('LedgerEntry', LedgerEntry)),
        orders: list(ref('Order', Order)),
        subscriptions: list(answer({ id: rInt, plan_id: rStr, starts_at: rTime, ends_at: rTime, ref: rStr })),
        audit: list(AuditEntry),
      }),
    },
  },
  adminGrant: {
    method: 'POST',
    path: '/console/api/admin/grants',
    summary: 'Grant (or deduct, negative) TOKEN',
    auth: 'admin',
    body: body({ email: text(254), amount: signedTokens, reason: text(500) }),
    responses: { 201: answer({ user_id: rInt, email: rStr, amount: rTokens, balance: rTokens, ref: rStr }) },
  },
  adminAdjust: {
    method: 'POST',
    path: '/console/api/admin/users/:id/adjustments',
    summary: 'Refund or debit with a reason (never below the available balance)',
    auth: 'admin',
    params: id,
    body: body({
      kind: oneOf(['refund', 'debit']),
      amount: positiveTokens(ADJUST_NOT_POSITIVE),
      reason: text(500),
    }),
    responses: {
      201: answer({
        user_id: rInt,
        kind: oneOf(['refund', 'debit']),
        amount: rTokens,
        balance: rTokens,
        ref: rStr,
      }),
    },
  },
  adminResetPassword: {
    method: 'POST',
    path: '/console/api/admin/users/:id/password',
    summary: "Set a user's password (omit it to generate one, shown once); every session of the user ends",
    auth: 'admin',
    params: id,
    body: body({ password: Type.Optional(newPassword) }),
    responses: {
      200: answer({
        reset: constant(true),
        signed_out_sessions: rInt,
        password: Type.Optional(Type.String({ description: 'only when the server chose it' })),
      }),
    },
  },
  adminDisable2fa: {
    method: 'POST',
    path: '/console/api/admin/users/:id/2fa/disable',
    summary: "Turn off a user's 2FA (lost device)",
    auth: 'admin',
    params: id,
    responses: { 200: answer({ enabled: constant(false) }) },
  },
  adminAudit: {
    method: 'GET',
    path: '/console/api/admin/audit',
    summary: 'Audit log, newest first',
    auth: 'admin',
    query: query({
      user_id: idQuery('the account concerned'),
      q: textQuery('the accounts concerned: email contains, key prefix (sk_...) or user id'),
      actor_id: idQuery('who did it'),
      action: textQuery('e.g. key.rotate'),
      limit: upTo(500, 'page size, 1-500'),
      before: idQuery('id cursor: next_before of the previous page'),
    }),
    responses: { 200: answer({ entries: list(AuditEntry), next_before: nextBefore }) },
  },
});

export type AuditEntry = Static<typeof AuditEntry>;
