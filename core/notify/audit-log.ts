// The audit log: every admin action and every key, limit and plan change, with who, when, what and from which
// IP. Rows are written after the change commits (a failed change leaves no row); `detail` never holds secrets.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../store/schema.js';
import type { AuditLogTable } from '../store/schema-notifications.js';

export type AuditRow = Selectable<AuditLogTable>;

export interface AuditEntry {
  actorId: number | null;
  actorRole: 'admin' | 'user' | 'system';
  action: string;
  targetType: string;
  targetId?: string | number | null;
  /** The account the change concerns, so a user's drill-down lists it. */
  subjectUserId?: number | null;
  detail?: Record<string, unknown>;
  ip?: string | null;
}

export async function writeAudit(db: Kysely<Database>, e: AuditEntry, now = Date.now()): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      actor_id: e.actorId,
      actor_role: e.actorRole,
      action: e.action,
      target_type: e.targetType,
      target_id: e.targetId === undefined || e.targetId === null ? null : String(e.targetId),
      subject_user_id: e.subjectUserId ?? null,
      detail: JSON.stringify(e.detail ?? {}),
      ip: e.ip ?? null,
      created_at: now,
    })
    .execute();
}

export interface AuditFilter {
  subjectUserId?: number;
  /** Any of these users (an admin's search by email or key prefix); empty matches nothing. */
  subjectUserIds?: number[];
  actorId?: number;
  action?: string;
  before?: number;
  limit: number;
}

export async function listAudit(db: Kysely<Database>, f: AuditFilter): Promise<AuditRow[]> {
  let q = db.selectFrom('audit_log').selectAll();
  if (f.subjectUserId !== undefined) q = q.where('subject_user_id', '=', f.subjectUserId);
  if (f.subjectUserIds !== undefined) {
    if (f.subjectUserIds.length === 0) return [];
    q = q.where('subject_user_id', 'in', f.subjectUserIds);
  }
  if (f.actorId !== undefined) q = q.where('actor_id', '=', f.actorId);
  if (f.action !== undefined) q = q.where('action', '=', f.action);
  if (f.before !== undefined) q = q.where('id', '<', f.before);
  return q.orderBy('id', 'desc').limit(f.limit).execute();
}
