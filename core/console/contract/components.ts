// Shapes several console answers share, published under components.schemas of /openapi.json and referred to by
// name (`ref`). Their Static types are what the browser reads (web/src/types.ts re-exports them).
import {
  answer,
  anyObject,
  as,
  both,
  constant,
  list,
  oneOf,
  orNull,
  rBool,
  ref,
  rInt,
  rNumber,
  rStr,
  rTime,
  rTokens,
  type Static,
  Type,
} from './schema.js';

const strList = list(rStr);

export const User = answer({
  id: rInt,
  email: rStr,
  role: oneOf(['user', 'admin']),
  status: rStr,
  created_at: orNull(rTime),
});
export const UserWithBalance = both(ref('User', User), answer({ balance: rTokens, available: rTokens }));

export const KeyLimits = answer({
  allowed_codes: orNull(strList),
  ip_allow: orNull(strList),
  expires_at: orNull(rTime),
  rate_limit_per_sec: orNull(rInt),
  rate_limit_burst: orNull(rInt),
  max_concurrency: orNull(rInt),
  daily_spend_cap: orNull(rTokens),
});
export const ApiKey = answer({
  id: rInt,
  name: rStr,
  prefix: rStr,
  status: oneOf(['active', 'disabled', 'expired']),
  created_at: orNull(rTime),
  last_used_at: orNull(rTime),
  limits: KeyLimits,
  previous_secret_valid_until: Type.Optional(
    Type.String({ format: 'date-time', description: 'only after a rotation with a grace period' }),
  ),
});

export const Order = answer({
  id: rInt,
  user_id: rInt,
  kind: oneOf(['plan', 'package']),
  item_id: rStr,
  item_name: rStr,
  amount: rTokens,
  provider: rStr,
  status: rStr,
  created_at: orNull(rTime),
  paid_at: orNull(rTime),
});
/** Where an order stands (core/billing/payments/settle-payment.ts moves it). */
export const ORDER_STATUSES = ['pending', 'paid', 'cancelled', 'expired', 'refunded', 'amount_mismatch'] as const;
export const PaymentOrder = both(
  ref('Order', Order),
  answer({
    status: oneOf(ORDER_STATUSES),
    instance: Type.String({ description: 'the payment instance (the provider kind for orders older than instances)' }),
    method: orNull(rStr),
    currency: rStr,
    pay_amount: orNull(rNumber),
    tokens: orNull(rTokens),
    expires_at: orNull(rTime),
    credited_at: orNull(rTime),
    late: rBool,
    refunded_tokens: rTokens,
    instructions: as<string | null>({
      type: ['string', 'null'],
      description:
        "a pending manual order: whom to pay, the amount, the order number to quote, what happens next (the caller's language); null otherwise",
    }),
  }),
);
/** Text in both languages. */
export const Bilingual = answer({ zh: rStr, en: rStr });
/** The buyer's next step (core/billing/payment-provider.ts PaymentAction). */
const payStep = Type.Union([
  answer({ type: constant('redirect'), url: rStr }),
  answer({
    type: constant('form'),
    url: rStr,
    fields: as<Record<string, string>>({ type: 'object', additionalProperties: { type: 'string' } }),
  }),
  answer({ type: constant('qrcode'), text: rStr }),
  answer({ type: constant('none'), instructions: Bilingual }),
]);
export const PaymentAction = answer({
  provider: rStr,
  kind: rStr,
  action: payStep,
  message: Type.Optional(rStr),
  qr_svg: Type.Optional(rStr),
});

export const Call = answer({
  id: rInt,
  request_id: rStr,
  created_at: rTime,
  operation: orNull(rStr),
  key_id: orNull(rInt),
  status: Type.Integer({ description: 'the HTTP status answered' }),
  error_code: orNull(rStr),
  charged: rTokens,
  cached: rBool,
  free_reason: orNull(rStr),
  duration_ms: orNull(rNumber),
  ip: orNull(rStr),
});
export const LedgerEntry = answer({
  id: rInt,
  created_at: rTime,
  kind: rStr,
  amount: rTokens,
  balance_after: rTokens,
  ref: rStr,
  operation: orNull(rStr),
  /**
   * The admin views: the operator's note as written. The customer's own ledger: only a bought item's name (package,
   * plan, redeem code), else null (core/billing/ledger-labels.ts).
   */
  note: orNull(rStr),
  /** Where the money came from or went, in both languages (e.g. "Credit from support" / "客服赠送"). */
  label: answer({ zh: rStr, en: rStr }),
});

export const Webhook = answer({
  id: rInt,
  url: rStr,
  kind: oneOf(['standard', 'wecom', 'dingtalk', 'feishu']),
  events: strList,
  status: oneOf(['active', 'disabled']),
  bot_signed: rBool,
  created_at: orNull(rTime),
});
export const WebhookDelivery = answer({
  id: rInt,
  message_id: rStr,
  event: rStr,
  status: oneOf(['pending', 'delivered', 'failed']),
  attempts: rInt,
  next_at: orNull(rTime),
  last_status: orNull(rInt),
  last_error: orNull(rStr),
  created_at: orNull(rTime),
  delivered_at: orNull(rTime),
  payload: Type.Unknown(),
});
export const Alerts = answer({
  balance_threshold: orNull(rTokens),
  quota_percent: orNull(rInt),
  email: rBool,
  armed: rBool,
  last_fired_at: orNull(rTime),
});

/** Name and description in both languages (the console switches language without asking again). */
export const catalogueText = answer({
  zh: answer({ name: rStr, description: rStr }),
  en: answer({ name: rStr, description: rStr }),
});
export const Operation = answer({
  code: rStr,
  name: rStr,
  description: rStr,
  text: catalogueText,
  available: rBool,
  price: rTokens,
  cache_ttl: rInt,
  timeout_ms: rInt,
  input: anyObject,
  example: orNull(anyObject),
  response_example: orNull(anyObject),
  routes: strList,
  response: as<Array<{ path: string; type: string; required: boolean; zh: string; en: string }> | null>({
    type: ['array', 'null'],
    description: 'the fields of data, flattened (author.name, traces[].time)',
    items: answer({ path: rStr, type: rStr, required: rBool, zh: rStr, en: rStr }),
  }),
});
export const Plan = answer({
  id: rStr,
  name: Type.String({ description: "in the caller's language (Accept-Language, else English)" }),
  description: rStr,
  text: catalogueText,
  price: rTokens,
  duration_days: rInt,
  grant_tokens: rTokens,
  quota: answer({ calls_per_day: rInt, concurrency: orNull(rInt), cache_free: rBool }),
  codes: strList,
});
export const Package = answer({
  id: rStr,
  name: rStr,
  description: rStr,
  text: catalogueText,
  price: rTokens,
  tokens: rTokens,
});

/** components.schemas of /openapi.json. */
export const CONSOLE_COMPONENTS = {
  User,
  UserWithBalance,
  ApiKey,
  Order,
  PaymentOrder,
  PaymentAction,
  Call,
  LedgerEntry,
  Webhook,
  WebhookDelivery,
  Alerts,
  Operation,
  Plan,
  Package,
};

export type ApiKey = Static<typeof ApiKey>;
export type KeyLimits = Static<typeof KeyLimits>;
export type User = Static<typeof User>;
export type UserWithBalance = Static<typeof UserWithBalance>;
export type Order = Static<typeof Order>;
export type PaymentOrder = Static<typeof PaymentOrder>;
export type PaymentAction = Static<typeof PaymentAction>;
export type Call = Static<typeof Call>;
export type LedgerEntry = Static<typeof LedgerEntry>;
export type Webhook = Static<typeof Webhook>;
export type WebhookDelivery = Static<typeof WebhookDelivery>;
export type Alerts = Static<typeof Alerts>;
export type Plan = Static<typeof Plan>;
export type Operation = Static<typeof Operation>;
export type Package = Static<typeof Package>;
