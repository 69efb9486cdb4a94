// Row types of every table, as Kysely sees them. Money columns are integer micro-TOKEN; times are epoch ms.
import type { ColumnType, Generated } from 'kysely';
import type { AccountSecurityTables } from './schema-account-security.js';
import type { HealthTables } from './schema-health.js';
import type { NotificationTables } from './schema-notifications.js';
import type { PaymentTables } from './schema-payments.js';
import type { RefusedTables } from './schema-refused.js';

export interface UsersTable {
  id: Generated<number>;
  email: string;
  password_hash: string;
  role: 'user' | 'admin';
  status: 'active' | 'disabled';
  balance: Generated<number>;
  /** Sum of active holds: available = balance - held. Kept on the row so one conditional UPDATE reserves money. */
  held: Generated<number>;
  created_at: number;
}

export interface UserTokensTable {
  id: Generated<number>;
  user_id: number;
  token_hash: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

export interface ApiKeysTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  prefix: string;
  key_hash: string;
  status: 'active' | 'disabled';
  created_at: number;
  last_used_at: number | null;
  expires_at: number | null;
  /** JSON array of operation codes, or null for all. */
  allowed_codes: string | null;
  /** JSON array of CIDRs, or null for any address. */
  ip_allow: string | null;
  rate_limit_per_sec: number | null;
  rate_limit_burst: number | null;
  max_concurrency: number | null;
  daily_spend_cap: number | null;
  deleted_at: number | null;
  /** The secret a rotation replaced, accepted until prev_expires_at (migration 007). */
  prev_key_hash: string | null;
  prev_expires_at: number | null;
}

export type LedgerKind = 'charge' | 'topup' | 'grant' | 'refund' | 'adjustment' | 'plan_grant' | 'package' | 'redeem';

export interface LedgerTable {
  id: Generated<number>;
  user_id: number;
  amount: number;
  balance_after: number;
  kind: LedgerKind;
  /** Unique reference (request id, order id, redeem code): makes every money movement happen at most once. */
  ref: string;
  operation: string | null;
  note: string | null;
  created_at: number;
}

export interface HoldsTable {
  id: string;
  user_id: number;
  amount: number;
  created_at: number;
  expires_at: number;
}

export interface CallLogTable {
  id: Generated<number>;
  request_id: string;
  user_id: number | null;
  key_id: number | null;
  operation: string | null;
  status: number;
  error_code: string | null;
  charged: number;
  cached: number;
  free_reason: string | null;
  duration_ms: number;
  plugin_ms: number | null;
  ip: string | null;
  created_at: number;
  /** 1: a canary's call on the system account (migration 013); never a customer's usage. */
  canary: Generated<number>;
  /** Why an upstream failed (core/sandbox/failure-class.ts); null for successes and the caller's own errors. */
  failure_class: string | null;
  /** The configured upstream that served the call, and its cost in micro-TOKEN (0 for built-in plugins). */
  upstream: string | null;
  upstream_cost: ColumnType<number, number | undefined, number>;
}

export interface IdempotencyTable {
  user_id: number;
  idem_key: string;
  request_hash: string;
  state: 'pending' | 'done';
  status: number | null;
  response: string | null;
  created_at: number;
  /** A pending claim's lease (operation timeout + grace); a done record's 24 h retention. */
  expires_at: number;
  /** Request id of the call holding a pending claim. */
  owner: string | null;
}

export interface Database
  extends PaymentTables,
    BillingTables,
    AccountSecurityTables,
    NotificationTables,
    RefusedTables,
    HealthTables {
  users: UsersTable;
  user_tokens: UserTokensTable;
  api_keys: ApiKeysTable;
  ledger: LedgerTable;
  holds: HoldsTable;
  call_log: CallLogTable;
  idempotency: IdempotencyTable;
}

export interface SubscriptionsTable {
  id: Generated<number>;
  user_id: number;
  plan_id: string;
  starts_at: number;
  ends_at: number;
  ref: string;
  created_at: number;
}

export interface OrdersTable {
  id: Generated<number>;
  user_id: number;
  kind: 'plan' | 'package';
  item_id: string;
  item_name: string;
  amount: number;
  provider: string;
  /** paid = paid and credited in one transaction (credited_at); see core/billing/payments/settle-payment.ts. */
  status: 'pending' | 'paid' | 'cancelled' | 'expired' | 'refunded' | 'amount_mismatch';
  created_at: number;
  paid_at: number | null;
  confirmed_by: number | null;
  // Migration 005 (payments): the snapshot of what was sold, the provider instance and its trade number.
  instance: string | null;
  method: string | null;
  currency: string | null;
  amount_minor: number | null;
  tokens_micro: number | null;
  plan_days: number | null;
  provider_ref: string | null;
  provider_trade_no: string | null;
  pay_action: string | null;
  expires_at: number | null;
  credited_at: number | null;
  closed_at: number | null;
  late: number | null;
  refunded_micro: number | null;
  note: string | null;
}

export interface RedeemBatchesTable {
  id: Generated<number>;
  kind: 'plan' | 'package';
  item_id: string;
  count: number;
  created_by: number;
  created_at: number;
  expires_at: number | null;
}

export interface RedeemCodesTable {
  code: string;
  batch_id: number;
  kind: 'plan' | 'package';
  item_id: string;
  created_at: number;
  expires_at: number | null;
  redeemed_by: number | null;
  redeemed_at: number | null;
}

/** Login throttling, one row per scope: `ipacct:<ip>|<email>`, `ip:<ip>`, `acct:<email>`, `good:<user id>|<ip>`. */
export interface LoginAttemptsTable {
  scope: string;
  failures: number;
  last_at: number;
}

export interface BillingTables {
  subscriptions: SubscriptionsTable;
  orders: OrdersTable;
  redeem_batches: RedeemBatchesTable;
  redeem_codes: RedeemCodesTable;
  login_attempts: LoginAttemptsTable;
}
