// What an upstream disabled by an error rule (operations.yaml `disable_s`: a refused credential, a used-up quota)
// tells the operator: the `upstream.disabled` webhook to the operator's endpoints and one mail to every active
// admin, naming the operation, the upstream, the rule's code and text, and until when. The caller sends it only on
// the change into disabled (UpstreamHealth.disable), so repeats while disabled stay quiet.
import type { Kysely } from 'kysely';
import type { Logger } from '../../kernel/logger.js';
import type { Database } from '../../store/schema.js';
import type { Webhooks } from '../webhooks/webhooks.js';
import { activeAdminEmails } from './admin-recipients.js';
import type { SendMail } from './balance-alerts.js';

export interface UpstreamDisabledNotice {
  operation: string;
  upstream: string;
  code: string;
  reason: string;
  seconds: number;
  /** Epoch ms it is out until. */
  until: number;
}

export function upstreamDisabledMail(n: UpstreamDisabledNotice): { subject: string; text: string } {
  const until = new Date(n.until).toISOString();
  return {
    subject: `[Tollgate] ${n.operation}/${n.upstream} 上游已停用 / upstream disabled (${n.code})`,
    text:
      `接口 ${n.operation} 的上游 ${n.upstream} 因错误规则 ${n.code}（${n.reason}）停用 ${n.seconds} 秒，至 ${until}。请检查它的密钥或额度。\n` +
      `Upstream ${n.upstream} of operation ${n.operation} is disabled by its error rule ${n.code} (${n.reason}) for ${n.seconds} s, until ${until}. Check its credential or quota.\n`,
  };
}

export async function sendUpstreamDisabledAlerts(
  deps: { db: Kysely<Database>; webhooks: Webhooks; sendMail: SendMail; logger: Logger },
  n: UpstreamDisabledNotice,
): Promise<void> {
  const data = {
    operation: n.operation,
    upstream: n.upstream,
    code: n.code,
    seconds: n.seconds,
    reason: n.reason,
    until: new Date(n.until).toISOString(),
  };
  await deps.webhooks
    .emit('upstream.disabled', data, null)
    .catch((err: Error) => deps.logger.warn('upstream.disabled webhook not queued', { ...data, reason: err.message }));
  const mail = upstreamDisabledMail(n);
  for (const to of await activeAdminEmails(deps.db)) {
    const sent = await deps.sendMail({ to, ...mail }).catch(() => ({ ok: false }));
    if (!sent.ok)
      deps.logger.warn('upstream disabled mail failed', { operation: n.operation, upstream: n.upstream, to });
  }
}
