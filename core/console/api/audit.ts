// The audit row of a console change: the logged-in actor and the client IP come from the request itself.
import type { Context } from 'koa';
import { clientIpOf } from '../../http/client-ip.js';
import { type AuditEntry, type AuditRow, writeAudit } from '../../notify/audit-log.js';
import type { Services } from '../../services.js';
import type { AuditEntry as AuditAnswer } from '../contract/admin-users.js';
import { userOf } from './auth.js';
import { iso } from './present.js';

export async function audit(
  ctx: Context,
  s: Services,
  e: Omit<AuditEntry, 'actorId' | 'actorRole' | 'ip'>,
): Promise<void> {
  const actor = userOf(ctx);
  await writeAudit(s.store.db, { ...e, actorId: actor.id, actorRole: actor.role, ip: clientIpOf(ctx) });
}

/** One audit row as the log shows it; `email` names the actor and the subject (null when unknown or gone). */
export function presentAudit(r: AuditRow, email: (id: number) => string | null): AuditAnswer {
  const actorId = r.actor_id === null ? null : Number(r.actor_id);
  const subjectId = r.subject_user_id === null ? null : Number(r.subject_user_id);
  return {
    id: Number(r.id),
    created_at: iso(r.created_at),
    actor_id: actorId,
    actor_role: r.actor_role,
    action: r.action,
    target_type: r.target_type,
    target_id: r.target_id,
    subject_user_id: subjectId,
    detail: JSON.parse(r.detail) as unknown,
    ip: r.ip,
    actor_email: actorId === null ? null : email(actorId),
    subject_email: subjectId === null ? null : email(subjectId),
  };
}
