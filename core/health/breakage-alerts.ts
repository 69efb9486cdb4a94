// What a state change of an operation tells the operator: a Standard Webhooks event to the operator's endpoints
// (operation.degraded, operation.down, operation.recovered) and one mail to every active admin, both naming the
// operation, the platform, the failure class and the field that broke. Sent once per change, by the one process
// that runs the canaries.
import type { Kysely } from 'kysely';
import type { Logger } from '../kernel/logger.js';
import { activeAdminEmails } from '../notify/alerts/admin-recipients.js';
import type { SendMail } from '../notify/alerts/balance-alerts.js';
import type { Webhooks } from '../notify/webhooks/webhooks.js';
import type { Database } from '../store/schema.js';
import { type Change, eventOf, type SubjectState } from './status-machine.js';

export interface BreakageNotice {
  operation: string;
  platform: string;
  change: Change;
  state: SubjectState;
}

const ZH = { degraded: '异常', down: '故障', ok: '已恢复', unknown: '未知' } as const;
const EN = { degraded: 'degraded', down: 'down', ok: 'recovered', unknown: 'unknown' } as const;

export function breakageMail(n: BreakageNotice, publicUrl: string): { subject: string; text: string } {
  const subject = `${n.operation}${n.platform ? `/${n.platform}` : ''}`;
  const to = n.change.to;
  const failing = to !== 'ok';
  const since = new Date(n.state.since).toISOString();
  const why = failing
    ? `\n类别 / class: ${n.state.lastClass ?? '-'}\n字段 / field: ${n.state.lastField ?? '-'}\n详情 / detail: ${n.state.lastDetail ?? '-'}`
    : '';
  return {
    subject: `[Tollgate] ${subject} ${ZH[to]} / ${EN[to]}${failing && n.state.lastClass ? ` (${n.state.lastClass})` : ''}`,
    text:
      `接口 ${subject} 的状态从 ${ZH[n.change.from]} 变为 ${ZH[to]}（${since}）。\n` +
      `Operation ${subject} went from ${EN[n.change.from]} to ${EN[to]} at ${since}.\n${why}\n\n` +
      `状态页 / Status page: ${publicUrl}/status\n`,
  };
}

export async function sendBreakageAlerts(
  deps: { db: Kysely<Database>; webhooks: Webhooks; sendMail: SendMail; logger: Logger; publicUrl: string },
  n: BreakageNotice,
): Promise<boolean> {
  const event = eventOf(n.change);
  if (!event) return false;
  const data = {
    operation: n.operation,
    platform: n.platform || null,
    state: n.change.to,
    previous: n.change.from,
    since: new Date(n.state.since).toISOString(),
    class: n.change.to === 'ok' ? null : n.state.lastClass,
    field: n.change.to === 'ok' ? null : n.state.lastField,
    detail: n.change.to === 'ok' ? null : n.state.lastDetail,
    last_success_at: n.state.lastSuccessAt === null ? null : new Date(n.state.lastSuccessAt).toISOString(),
  };
  await deps.webhooks.emit(event, data, null);
  const mail = breakageMail(n, deps.publicUrl);
  for (const to of await activeAdminEmails(deps.db)) {
    const sent = await deps.sendMail({ to, ...mail }).catch(() => ({ ok: false }));
    if (!sent.ok) deps.logger.warn('breakage mail failed', { operation: n.operation, to });
  }
  deps.logger.warn('operation state changed', {
    operation: n.operation,
    platform: n.platform || undefined,
    from: n.change.from,
    to: n.change.to,
    class: data.class,
    field: data.field,
  });
  return true;
}
