// What every console route answers on success, as JSON Schema for the OpenAPI document and the contract test
// (test/console/openapi-contract.test.ts checks real answers against these). Console answers are plain JSON
// objects (errors are the Failure envelope). Shared shapes are components (core/console/contract/components.ts);
// the keys listed are always present. Objects stay open to new keys: a console client must ignore what it does not know.
import { CANARY_RESPONSES } from './status-schemas.js';

type Schema = Record<string, unknown>;

const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer' };
const bool: Schema = { type: 'boolean' };
const tokens: Schema = { type: 'number', description: 'TOKEN' };
const time: Schema = { type: 'string', format: 'date-time' };
const orNull = (s: Schema): Schema => ({ ...s, type: [s.type as string, 'null'] });
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const list = (item: Schema): Schema => ({ type: 'array', items: item });
const nextBefore: Schema = {
  type: ['integer', 'null'],
  description: 'id cursor for the next page (before=); null on the last page',
};
/** An object whose listed keys are all present. */
const o = (properties: Record<string, Schema>, optional: string[] = []): Schema => ({
  type: 'object',
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  properties,
});
const strList = list(str);

const session = o({ token: str, expires_at: time, remember: bool, user: ref('User') });
const challenge = o({ two_factor_required: { const: true }, challenge: str, expires_at: time });
const pendingVerification = o({ verification_required: { const: true }, mail_sent: bool });
const orderAnswer = o({ order: ref('PaymentOrder') });
const deleted = o({ deleted: { const: true }, id: int });
const webhookAnswer = o({ webhook: ref('Webhook') });

/** By endpoint id (core/console/api/console-endpoints.ts: the routes not yet defined in core/console/contract/); a test checks every endpoint has one. */
export const CONSOLE_RESPONSES: Record<string, Schema> = {
  register: { anyOf: [session, pendingVerification] },
  login: { anyOf: [session, challenge, pendingVerification] },
  login2fa: session,
  logout: o({ logged_out: { const: true } }),
  changePassword: o({ changed: { const: true }, signed_out_sessions: int, notice_mailed: bool }),
  forgotPassword: o({ accepted: { const: true }, message: str }),
  resetPassword: o({ reset: { const: true }, signed_out_sessions: int }),
  verifyEmail: o({ verified: { const: true } }),
  resendVerification: o({ accepted: { const: true }, message: str }),
  security: o({
    email_verified: bool,
    locale: orNull(str),
    two_factor: o({ enabled: bool, enabled_at: orNull(time), recovery_codes_left: int }),
    two_factor_required: bool,
  }),
  updateSecurity: o({ locale: { enum: ['zh', 'en'] } }),
  twoFactorSetup: o({
    secret: str,
    otpauth_uri: str,
    qr_svg: { type: 'string', description: 'the otpauth URI as a QR code, an SVG document to scan' },
  }),
  twoFactorEnable: o({ enabled: { const: true }, recovery_codes: strList }),
  twoFactorRecoveryCodes: o({ recovery_codes: strList }),
  twoFactorDisable: o({ enabled: { const: false } }),
  sessions: o({ items: list(o({ id: int, created_at: orNull(time), expires_at: orNull(time), current: bool })) }),
  revokeSession: o({ revoked: { const: true } }),
  revokeOtherSessions: o({ revoked: { type: 'integer', description: 'sessions ended' } }),
  revokeAllSessions: o({ revoked: { type: 'integer', description: 'sessions ended' } }),
  paymentMethods: o({
    methods: list(o({ id: str, kind: str, methods: strList, currency: str, label: { type: ['string', 'object'] } })),
    default: orNull(str),
  }),
  getOrder: o({ order: ref('PaymentOrder'), payment: { oneOf: [ref('PaymentAction'), { type: 'null' }] } }),
  cancelOrder: orderAnswer,
  adminPaymentSummary: o({ pending: int, amount_mismatch: int, instances: list({ type: 'object' }) }),
  adminPaymentLog: o({ entries: list({ type: 'object' }), next_before: nextBefore }),
  adminSyncOrder: o({ state: str, outcome: str, order: ref('PaymentOrder') }),
  adminRefundOrder: o({
    order: ref('PaymentOrder'),
    refund_no: str,
    amount: { type: 'number' },
    tokens,
    provider_refunded: bool,
  }),
  usage: o({
    days: int,
    from: orNull(time),
    by_day: list({ type: 'object' }),
    by_operation: list({ type: 'object' }),
    rows: list({ type: 'object' }),
  }),
  calls: o({ calls: list(ref('Call')), next_before: nextBefore }),
  ledger: o({ entries: list(ref('LedgerEntry')), next_before: nextBefore }),
  listOrders: o({ orders: list(ref('PaymentOrder')) }),
  createOrder: o({ order: ref('PaymentOrder'), payment: ref('PaymentAction'), reused: bool }),
  redeem: o({
    code: str,
    kind: { enum: ['plan', 'package'] },
    id: str,
    tokens,
    balance: orNull(tokens),
    plan_ends_at: orNull(time),
  }),
  adminCreateRedeemCodes: o({
    batch_id: int,
    kind: { enum: ['plan', 'package'] },
    id: str,
    count: int,
    expires_at: orNull(time),
    codes: strList,
  }),
  adminRedeemBatches: o({
    batches: list(
      o({
        batch_id: int,
        kind: str,
        id: str,
        count: int,
        redeemed: int,
        created_at: orNull(time),
        expires_at: orNull(time),
      }),
    ),
  }),
};
for (const who of ['my', 'operator']) {
  CONSOLE_RESPONSES[`${who}Webhooks`] = o({ webhooks: list(ref('Webhook')), events: strList });
  CONSOLE_RESPONSES[`${who}CreateWebhook`] = o({ webhook: ref('Webhook'), secret: orNull(str) });
  CONSOLE_RESPONSES[`${who}UpdateWebhook`] = webhookAnswer;
  CONSOLE_RESPONSES[`${who}DeleteWebhook`] = deleted;
  CONSOLE_RESPONSES[`${who}WebhookDeliveries`] = o({
    deliveries: list(ref('WebhookDelivery')),
    next_before: nextBefore,
  });
  CONSOLE_RESPONSES[`${who}ReplayDelivery`] = o({ replayed: { const: true }, id: int });
}

Object.assign(CONSOLE_RESPONSES, CANARY_RESPONSES);
