// The events Tollgate sends and the one-line text a chat bot shows for each (zh first, then en: bots post into
// mixed-language groups). Amounts in payloads are TOKEN numbers, as everywhere at the HTTP edge.
// upstream.disabled goes to the operator's endpoints only: a configured upstream refused its credential or quota.
export const WEBHOOK_EVENTS = [
  'order.paid',
  'order.pending',
  'balance.low',
  'plan.expiring',
  'key.expiring',
  // Operator endpoints only (no user_id): an operation's canary state changed (core/health).
  'operation.degraded',
  'operation.down',
  'operation.recovered',
  'upstream.disabled',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export function isWebhookEvent(v: unknown): v is WebhookEvent {
  return typeof v === 'string' && (WEBHOOK_EVENTS as readonly string[]).includes(v);
}

type Data = Record<string, unknown>;
const s = (v: unknown): string => (v === undefined || v === null ? '-' : String(v));

export function eventText(event: WebhookEvent, d: Data): string {
  switch (event) {
    case 'operation.degraded':
    case 'operation.down':
    case 'operation.recovered':
      return operationText(event, d);
    case 'balance.low':
      if (d.reason === 'plan_quota') {
        return (
          `[Tollgate] 套餐额度提醒：账户 ${s(d.email)} 今日剩余 ${s(d.quota_left)}/${s(d.quota_limit)} 次，低于 ${s(d.percent)}%。\n` +
          `[Tollgate] Plan quota: account ${s(d.email)} has ${s(d.quota_left)} of ${s(d.quota_limit)} calls left today, below ${s(d.percent)}%.`
        );
      }
      return (
        `[Tollgate] 余额提醒：账户 ${s(d.email)} 余额 ${s(d.balance)} TOKEN，已低于提醒线 ${s(d.threshold)} TOKEN。\n` +
        `[Tollgate] Low balance: account ${s(d.email)} has ${s(d.balance)} TOKEN, below the alert line of ${s(d.threshold)} TOKEN.`
      );
    case 'order.paid':
      return (
        `[Tollgate] 订单 ${s(d.order_id)} 已支付：${s(d.item_id)}，${s(d.amount)} ${s(d.currency)}（账户 ${s(d.email)}）。\n` +
        `[Tollgate] Order ${s(d.order_id)} paid: ${s(d.item_id)}, ${s(d.amount)} ${s(d.currency)} (account ${s(d.email)}).`
      );
    case 'order.pending':
      return (
        `[Tollgate] 订单 ${s(d.order_id)} 等待确认收款：${s(d.item_id)}，${s(d.amount)} ${s(d.currency)}（账户 ${s(d.email)}）。\n` +
        `[Tollgate] Order ${s(d.order_id)} awaits payment confirmation: ${s(d.item_id)}, ${s(d.amount)} ${s(d.currency)} (account ${s(d.email)}).`
      );
    case 'plan.expiring':
      return (
        `[Tollgate] 套餐 ${s(d.plan_id)} 将于 ${s(d.ends_at)} 到期（账户 ${s(d.email)}）。\n` +
        `[Tollgate] Plan ${s(d.plan_id)} ends at ${s(d.ends_at)} (account ${s(d.email)}).`
      );
    case 'upstream.disabled':
      return (
        `[Tollgate] 上游停用：接口 ${s(d.operation)} 的上游 ${s(d.upstream)} 暂停 ${s(d.seconds)} 秒至 ${s(d.until)}（${s(d.reason)}），请检查密钥或额度。\n` +
        `[Tollgate] Upstream disabled: ${s(d.upstream)} of operation ${s(d.operation)} is out for ${s(d.seconds)} s, until ${s(d.until)} (${s(d.reason)}); check its credential or quota.`
      );
    case 'key.expiring':
      return (
        `[Tollgate] API 密钥 ${s(d.key_prefix)}（${s(d.key_name)}）将于 ${s(d.expires_at)} 过期。\n` +
        `[Tollgate] API key ${s(d.key_prefix)} (${s(d.key_name)}) expires at ${s(d.expires_at)}.`
      );
  }
}

const STATE_ZH = { 'operation.degraded': '异常', 'operation.down': '故障', 'operation.recovered': '已恢复' } as const;
const STATE_EN = {
  'operation.degraded': 'degraded',
  'operation.down': 'down',
  'operation.recovered': 'recovered',
} as const;

function operationText(event: keyof typeof STATE_ZH, d: Data): string {
  const subject = `${s(d.operation)}${d.platform ? `/${s(d.platform)}` : ''}`;
  const why = event === 'operation.recovered' ? '' : ` (${s(d.class)}${d.field ? `: ${s(d.field)}` : ''})`;
  return (
    `[Tollgate] 接口 ${subject} ${STATE_ZH[event]}${why}。\n` +
    `[Tollgate] Operation ${subject} ${STATE_EN[event]}${why}.`
  );
}

/** The Standard Webhooks body: type, timestamp, data. */
export function eventBody(event: WebhookEvent, data: Data, nowMs: number): string {
  return JSON.stringify({ type: event, timestamp: new Date(nowMs).toISOString(), data });
}
