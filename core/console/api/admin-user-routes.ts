// Admin depth on one account: a drill-down (keys, calls, ledger, orders, plans, audit), refunds and manual
// debits with a reason (one ledger row each; a debit never takes the balance below what holds reserve, so never
// below zero), and the audit log itself.
import { randomBytes } from 'node:crypto';
import type Router from '@koa/router';
import { listApiKeys } from '../../accounts/api-keys.js';
import { findUserById } from '../../accounts/users.js';
import { InsufficientBalanceError, postEntry } from '../../billing/ledger.js';
import { listCalls } from '../../billing/usage.js';
import { ApiError } from '../../http/errors.js';
import { toToken } from '../../kernel/money.js';
import { listAudit } from '../../notify/audit-log.js';
import type { Services } from '../../services.js';
import { emailsOf, parseSearch, userIdsMatching } from './admin-lookup.js';
import { audit, presentAudit } from './audit.js';
import { requireAdmin, userOf } from './auth.js';
import { presentCall } from './calls-query.js';
import { bodyOf, idParam, invalid, queryInt, queryOf, reqEnum, reqString, reqTokens } from './input.js';
import { iso, presentKey, presentLedgerEntry, presentOrder, presentUserWithBalance } from './present.js';

const RECENT = 50;

export function adminUserRoutes(router: Router, s: Services): void {
  const db = s.store.db;
  const admin = requireAdmin(s);

  // Who did it and to whom, by email: ids alone mean nothing to the operator reading the log.
  const withEmails = async (rows: Parameters<typeof presentAudit>[0][]) => {
    const emails = await emailsOf(
      db,
      rows.flatMap((r) => [
        r.actor_id === null ? null : Number(r.actor_id),
        r.subject_user_id === null ? null : Number(r.subject_user_id),
      ]),
    );
    const email = (id: number | null) => (id === null ? null : (emails.get(Number(id)) ?? null));
    return rows.map((r) => ({
      ...presentAudit(r),
      actor_email: email(r.actor_id),
      subject_email: email(r.subject_user_id),
    }));
  };

  const userOr404 = async (raw: string | undefined) => {
    const user = await findUserById(db, idParam(raw, 'user'));
    if (!user) throw new ApiError('RESOURCE_NOT_FOUND', `There is no user ${String(raw).slice(0, 20)}.`);
    return user;
  };

  router.get('/console/api/admin/users/:id/overview', admin, async (ctx) => {
    const user = await userOr404(ctx.params.id);
    await s.callLog.flush();
    const id = user.id;
    const [keys, calls, ledger, orders, subscriptions, auditRows] = await Promise.all([
      listApiKeys(db, id),
      listCalls(db, { userId: id, limit: RECENT }),
      db.selectFrom('ledger').selectAll().where('user_id', '=', id).orderBy('id', 'desc').limit(RECENT).execute(),
      db.selectFrom('orders').selectAll().where('user_id', '=', id).orderBy('id', 'desc').limit(RECENT).execute(),
      db
        .selectFrom('subscriptions')
        .selectAll()
        .where('user_id', '=', id)
        .orderBy('id', 'desc')
        .limit(RECENT)
        .execute(),
      listAudit(db, { subjectUserId: id, limit: RECENT }),
    ]);
    ctx.body = {
      user: presentUserWithBalance(user),
      keys: keys.map(presentKey),
      calls: calls.map(presentCall),
      ledger: ledger.map(presentLedgerEntry),
      orders: orders.map(presentOrder),
      subscriptions: subscriptions.map((r) => ({
        id: Number(r.id),
        plan_id: r.plan_id,
        starts_at: iso(r.starts_at),
        ends_at: iso(r.ends_at),
        ref: r.ref,
      })),
      audit: await withEmails(auditRows),
    };
  });

  router.post('/console/api/admin/users/:id/adjustments', admin, async (ctx) => {
    const user = await userOr404(ctx.params.id);
    const b = bodyOf(ctx, ['kind', 'amount', 'reason']);
    const kind = reqEnum(b, 'kind', ['refund', 'debit'] as const);
    const amount = reqTokens(b, 'amount');
    if (amount <= 0)
      throw invalid(`'amount' must be a positive TOKEN amount; 'kind' says whether it is a refund or a debit.`);
    const reason = reqString(b, 'reason', 500).trim();
    const actor = userOf(ctx);
    const signed = kind === 'refund' ? amount : -amount;
    const ref = `${kind}:${Date.now()}:${randomBytes(6).toString('hex')}`;
    let balanceAfter: number;
    try {
      balanceAfter = await postEntry(db, {
        userId: user.id,
        amount: signed,
        kind: kind === 'refund' ? 'refund' : 'adjustment',
        ref,
        note: `${reason} (by admin ${actor.id})`,
      });
    } catch (err) {
      if (err instanceof InsufficientBalanceError) {
        throw new ApiError(
          'CONFLICT',
          `Cannot debit ${toToken(amount)} TOKEN: it exceeds the user's available balance.`,
        );
      }
      throw err;
    }
    // A debit can cross the user's low-balance line; a refund re-arms it.
    s.alerts.observe(user.id, balanceAfter - signed, balanceAfter);
    await audit(ctx, s, {
      action: `user.${kind}`,
      targetType: 'user',
      targetId: user.id,
      subjectUserId: user.id,
      detail: { amount: toToken(amount), reason, ref, balance_after: toToken(balanceAfter) },
    });
    ctx.status = 201;
    ctx.body = { user_id: user.id, kind, amount: toToken(signed), balance: toToken(balanceAfter), ref };
  });

  router.get('/console/api/admin/audit', admin, async (ctx) => {
    const limit = queryInt(ctx, 'limit', 1, 500, 100);
    const num = (name: string) =>
      queryOf(ctx, name) === undefined ? undefined : queryInt(ctx, name, 1, Number.MAX_SAFE_INTEGER, 0);
    // q: whose log, by email part, key prefix (sk_...) or user id.
    const search = parseSearch(queryOf(ctx, 'q'));
    const subjectUserIds =
      search === undefined ? undefined : search.kind === 'order' ? [search.id] : await userIdsMatching(db, search);
    const rows = await listAudit(db, {
      subjectUserId: num('user_id'),
      subjectUserIds,
      actorId: num('actor_id'),
      action: queryOf(ctx, 'action'),
      before: num('before'),
      limit,
    });
    ctx.body = {
      entries: await withEmails(rows),
      next_before: rows.length === limit ? Number(rows[rows.length - 1].id) : null,
    };
  });
}
