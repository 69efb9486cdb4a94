// Chat-bot targets for alerts: WeCom (企业微信), DingTalk (钉钉) and Feishu (飞书) group bots take a plain text
// message in their own documented JSON shape. DingTalk and Feishu can require a signature computed from a
// timestamp and the bot's secret: DingTalk in the URL (timestamp ms, sign = base64 HMAC-SHA256 keyed by the
// secret over "timestamp\nsecret"), Feishu in the body (timestamp s, sign = base64 HMAC-SHA256 keyed by
// "timestamp\nsecret" over an empty message).
import { createHmac } from 'node:crypto';
import type { WebhookKind } from '../../store/schema-notifications.js';

export interface BotRequest {
  url: string;
  body: string;
}

export function botRequest(
  kind: Exclude<WebhookKind, 'standard'>,
  url: string,
  text: string,
  botSecret: string | null,
  nowMs: number,
): BotRequest {
  if (kind === 'wecom') return { url, body: JSON.stringify({ msgtype: 'text', text: { content: text } }) };
  if (kind === 'dingtalk') {
    const body = JSON.stringify({ msgtype: 'text', text: { content: text } });
    if (!botSecret) return { url, body };
    const sign = createHmac('sha256', botSecret).update(`${nowMs}\n${botSecret}`).digest('base64');
    const signed = new URL(url);
    signed.searchParams.set('timestamp', String(nowMs));
    signed.searchParams.set('sign', sign);
    return { url: signed.toString(), body };
  }
  const content = { msg_type: 'text', content: { text } };
  if (!botSecret) return { url, body: JSON.stringify(content) };
  const ts = Math.floor(nowMs / 1000);
  const sign = createHmac('sha256', `${ts}\n${botSecret}`).update('').digest('base64');
  return { url, body: JSON.stringify({ timestamp: String(ts), sign, ...content }) };
}

/** A bot answers HTTP 200 even when it refused the message; the refusal is in the body. */
export function botAccepted(kind: Exclude<WebhookKind, 'standard'>, responseText: string): boolean {
  try {
    const r = JSON.parse(responseText) as { errcode?: number; code?: number; StatusCode?: number };
    if (kind === 'feishu') return (r.code ?? r.StatusCode ?? 0) === 0;
    return (r.errcode ?? 0) === 0;
  } catch {
    return false;
  }
}
