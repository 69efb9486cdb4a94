// Row types of the notification and audit tables (migration 007).
import type { Generated } from 'kysely';

export type WebhookKind = 'standard' | 'wecom' | 'dingtalk' | 'feishu';

export interface WebhookEndpointsTable {
  id: Generated<number>;
  /** null: operator-level, receives every user's events. */
  user_id: number | null;
  url: string;
  kind: WebhookKind;
  /** whsec_ + base64 key (Standard Webhooks). */
  secret: string;
  bot_secret: string | null;
  /** JSON array of event types. */
  events: string;
  status: 'active' | 'disabled';
  created_at: number;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  endpoint_id: number;
  user_id: number | null;
  message_id: string;
  event: string;
  /** The JSON body sent, fixed at enqueue time so retries and replays send the same bytes. */
  payload: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  last_status: number | null;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
}

export interface AlertSettingsTable {
  user_id: number;
  balance_threshold: number | null;
  quota_percent: number | null;
  email: number;
  armed: number;
  last_fired_at: number | null;
  updated_at: number;
}

export interface AuditLogTable {
  id: Generated<number>;
  actor_id: number | null;
  actor_role: 'admin' | 'user' | 'system';
  action: string;
  target_type: string;
  target_id: string | null;
  subject_user_id: number | null;
  /** JSON object: what changed (before/after values, amounts, reasons); never secrets. */
  detail: string;
  ip: string | null;
  created_at: number;
}

/** `plan:<subscription id>:<ends_at>` or `key:<key id>:<expires_at>`: a changed end date is a new notice. */
export interface ExpiryNoticesTable {
  notice: string;
  created_at: number;
}

export interface NotificationTables {
  expiry_notices: ExpiryNoticesTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  alert_settings: AlertSettingsTable;
  audit_log: AuditLogTable;
}
