// Accounts for the operator (core/console/contract/admin-users.ts): find and open an account, disable or enable
// it, grant or deduct TOKEN, refund or debit with a reason (one ledger row each; a debit never takes the balance
// below what holds reserve, so never below zero), reset its password, turn off its 2FA; and the audit log.
import { randomBytes } from 'node:crypto';
import { listApiKeys } from '../../accounts/api-keys.js';
import { generatePassword } from '../../accounts/generated-password.js';
import { setPassword } from '../../accounts/password-change.js';
import { hashPassword } from '../../accounts/passwords.js';
import { CANARY_EMAIL } from '../../accounts/system-users.js';
import { disableTwoFactor } from '../../accounts/totp.js';
import { revokeAllUserTokens } from '../../accounts/user-tokens.js';
import { findUserByEmail, findUserById } from '../../accounts/users.js';
import { grantTokens } from '../../billing/grants.js';
import { InsufficientBalanceError, postEntry } from '../../billing/ledger.js';
import { listCalls } from '../../billing/usage.js';
import { ApiError } from '../../http/errors.js';
import { toToken } from '../../kernel/money.js';
import { type AuditRow, listAudit } from '../../notify/audit-log.js';
import type { Services } from '../../services.js';
import { emailsOf, parseSearch, userIdIn, userIdsMatching } from '../api/admin-lookup.js';
import { audit, presentAudit } from '../api/audit.js';
import { presentCall } from '../api/calls-query.js';
import { reqTokens } from '../api/input.js';
import { passwordGuardOf } from '../api/password-guard.js';
import { iso, presentKey, presentLedgerEntry, presentOrder, presentUserWithBalance } from '../api/present.js';
import { ADJUST_NOT_POSITIVE, ADMIN_USERS, type AuditEntry } from '../contract/admin-users.js';
import { invalid } from './input-checks.js';
import { implement } from './mount-routes.js';

const RECENT = 50;

const noUser = (id: number): ApiError => new ApiError('RESOURCE_NOT_FOUND', `There is no user ${id}.`);

export function adminUserRoutes(s: Services) {
  const db = s.store.db;
  const guard = passwordGuardOf(s);

  // Who did it and to whom, by email: ids alone mean nothing to the operator reading the log.
  const withEmails = async (rows: AuditRow[]): Promise<AuditEntry[]> => {
    const emails = await emailsOf(
      db,
      rows.flatMap((r) => [r.actor_id, r.subject_user_id].map((id) => (id === null ? null : Number(id)))),
    );
    return rows.map((r) => presentAudit(r, (id) => emails.get(id) ?? null));
  };

  const userOr404 = async (id: number) => {
    const user = await findUserById(db, id);
    if (!user) throw noUser(id);
    return user;
  };

  return implement(ADMIN_USERS, {
    adminUsers: async ({ query }) => {
      const search = parseSearch(query.q);
      // The canaries' system account is the gateway's, not a customer (its id still opens it: /admin/users/:id).
      let q = db
        .selectFrom('users')
        .selectAll()
        .where('email', '!=', CANARY_EMAIL)
        .orderBy('id')
        .limit(query.limit ?? 100);
      // An email part, or a key prefix (sk_...); a number is a user id here (there are no orders on this list).
      if (search?.kind === 'order') q = q.where('id', '=', search.id);
      else if (search) q = q.where(userIdIn(db, 'users.id', search));
      return { users: (await q.execute()).map(presentUserWithBalance) };
    },

    adminUser: async ({ params: { id } }) => ({ user: presentUserWithBalance(await userOr404(id)) }),

    adminUpdateUser: async ({ user: actor, params: { id }, body: { status } }, ctx) => {
      if (id === actor.id && status === 'disabled')
        throw new ApiError('CONFLICT', 'Admins cannot disable their own account.');
      const row = await db.updateTable('users').set({ status }).where('id', '=', id).returningAll().executeTakeFirst();
      if (!row) throw noUser(id);
      if (status === 'disabled') await revokeAllUserTokens(db, id);
      // Keys are cached per process: drop them here and tell the other processes.
      s.keys.invalidateUser(id);
      await s.state.publishRevocation(id);
      await audit(ctx, s, {
        action: 'user.status',
        targetType: 'user',
        targetId: id,
        subjectUserId: id,
        detail: { status },
      });
      return { user: presentUserWithBalance(row) };
    },

    adminUserOverview: async ({ params }) => {
      const user = await userOr404(params.id);
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
      return {
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
    },

    adminGrant: async ({ user: actor, body }, ctx) => {
      // The schema checked the form; the amount's range as micro-TOKEN and its sign are checked here.
      const amount = reqTokens(body, 'amount');
      const reason = body.reason.trim();
      if (amount === 0) throw invalid(`'amount' must not be 0: positive grants, negative deducts.`);
      const user = await findUserByEmail(db, body.email);
      if (!user) throw new ApiError('RESOURCE_NOT_FOUND', `There is no user with email ${body.email.slice(0, 80)}.`);
      try {
        const { balanceAfter, ref } = await grantTokens(db, { userId: user.id, amount, reason, adminId: actor.id });
        s.alerts.observe(user.id, balanceAfter - amount, balanceAfter);
        await audit(ctx, s, {
          action: amount > 0 ? 'user.grant' : 'user.deduct',
          targetType: 'user',
          targetId: user.id,
          subjectUserId: user.id,
          detail: { amount: toToken(amount), reason, ref, balance_after: toToken(balanceAfter) },
        });
        return { user_id: user.id, email: user.email, amount: toToken(amount), balance: toToken(balanceAfter), ref };
      } catch (err) {
        if (err instanceof InsufficientBalanceError)
          throw new ApiError(
            'CONFLICT',
            `Cannot deduct ${toToken(-amount)} TOKEN: it exceeds the user's available balance.`,
          );
        throw err;
      }
    },

    adminAdjust: async ({ user: actor, params, body }, ctx) => {
      const user = await userOr404(params.id);
      const { kind } = body;
      // A decimal string's sign and range are not the schema's to check ('0', '0.000000').
      const amount = reqTokens(body, 'amount');
      if (amount <= 0) throw invalid(ADJUST_NOT_POSITIVE);
      const reason = body.reason.trim();
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
        if (err instanceof InsufficientBalanceError)
          throw new ApiError(
            'CONFLICT',
            `Cannot debit ${toToken(amount)} TOKEN: it exceeds the user's available balance.`,
          );
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
      return { user_id: user.id, kind, amount: toToken(signed), balance: toToken(balanceAfter), ref };
    },

    // A chosen password or a generated one (shown once); every session of the user ends.
    adminResetPassword: async ({ params: { id }, body }, ctx) => {
      const chosen = body.password ?? null;
      const user = await userOr404(id);
      const password = chosen ?? generatePassword();
      const hash = await guard.gated(ctx, () => hashPassword(password), true);
      const signedOut = await setPassword(db, user.id, hash, null);
      await audit(ctx, s, {
        action: 'user.password_reset',
        targetType: 'user',
        targetId: user.id,
        subjectUserId: user.id,
        detail: { generated: chosen === null, signed_out_sessions: signedOut },
      });
      return { reset: true as const, signed_out_sessions: signedOut, ...(chosen === null ? { password } : {}) };
    },

    // For a user who lost the device.
    adminDisable2fa: async ({ params: { id } }, ctx) => {
      await userOr404(id);
      await disableTwoFactor(db, id);
      await audit(ctx, s, { action: 'user.2fa_disable', targetType: 'user', targetId: id, subjectUserId: id });
      return { enabled: false as const };
    },

    adminAudit: async ({ query }) => {
      const limit = query.limit ?? 100;
      // q: whose log, by email part, key prefix (sk_...) or user id.
      const search = parseSearch(query.q);
      const subjectUserIds =
        search === undefined ? undefined : search.kind === 'order' ? [search.id] : await userIdsMatching(db, search);
      const rows = await listAudit(db, {
        subjectUserId: query.user_id,
        subjectUserIds,
        actorId: query.actor_id,
        action: query.action,
        before: query.before,
        limit,
      });
      return {
        entries: await withEmails(rows),
        next_before: rows.length === limit ? Number(rows[rows.length - 1].id) : null,
      };
    },
  });
}
