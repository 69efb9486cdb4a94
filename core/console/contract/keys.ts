// /console/api/keys: a user's API keys. The secret is answered once, at creation or rotation.
import { ApiKey } from './components.js';
import { defineRoutes } from './define.js';
import {
  answer,
  as,
  body,
  constant,
  list,
  nullable,
  orNull,
  params,
  pathId,
  positiveTokens,
  ref,
  rInt,
  rStr,
  rTime,
  Type,
  text,
} from './schema.js';

/** A list limit: null, or 1-100 non-empty strings (core/console/routes/key-limits.ts reads it); `rule` is what
 * the schema cannot state (published in the operation's description). */
const codeList = (name: string, rule: string, item: Record<string, unknown> = {}) => {
  const message = `'${name}' must be null or a list of 1 to 100 non-empty strings.`;
  return Type.Optional(
    as<string[] | null>({
      type: ['array', 'null'],
      items: { type: 'string', minLength: 1, pattern: '\\S', ...item, 'x-error': message },
      minItems: 1,
      maxItems: 100,
      'x-error': message,
      'x-rule': rule,
    }),
  );
};
const optionalInt = (maximum: number, extra: Record<string, unknown> = {}) =>
  Type.Optional(nullable(Type.Integer({ minimum: 1, maximum, ...extra })));

/** The limits a key may carry; null clears one, an absent field leaves it as it is. */
export const keyLimits = {
  allowed_codes: codeList('allowed_codes', 'each an operation code of GET /console/api/operations'),
  ip_allow: codeList('ip_allow', 'each an IPv4 or IPv6 address or CIDR block (10.0.0.0/8, 2001:db8::/32)', {
    description: 'IP address or CIDR block',
  }),
  expires_at: Type.Optional(nullable(Type.String({ format: 'date-time', 'x-rule': 'in the future' }))),
  rate_limit_per_sec: optionalInt(10_000),
  rate_limit_burst: optionalInt(100_000, { 'x-rule': 'at least rate_limit_per_sec when both are set' }),
  max_concurrency: optionalInt(1000),
  daily_spend_cap: Type.Optional(
    nullable(positiveTokens("'daily_spend_cap' must be greater than 0 (use null for no cap).")),
  ),
};
export const MAX_GRACE_HOURS = 24 * 30;

const key = ref('ApiKey', ApiKey);
const id = params({ id: pathId('API key') });

export const KEYS = defineRoutes({
  listKeys: {
    method: 'GET',
    path: '/console/api/keys',
    summary: 'List API keys',
    auth: 'user',
    responses: { 200: answer({ keys: list(key) }) },
    links: {
      updateKey: {
        operationId: 'updateKey',
        parameters: { id: '$response.body#/keys/0/id' },
        description: 'Change the first key',
      },
    },
  },
  createKey: {
    method: 'POST',
    path: '/console/api/keys',
    summary: 'Create an API key (secret shown once)',
    auth: 'user',
    body: body({ name: Type.Optional(text(64)), ...keyLimits }),
    responses: {
      201: answer({ key, secret: Type.String({ description: 'the API key itself, shown once' }) }),
    },
    links: {
      updateKey: {
        operationId: 'updateKey',
        parameters: { id: '$response.body#/key/id' },
        description: 'Rename, disable or limit the new key',
      },
      rotateKey: {
        operationId: 'rotateKey',
        parameters: { id: '$response.body#/key/id' },
        description: 'Rotate its secret',
      },
      deleteKey: {
        operationId: 'deleteKey',
        parameters: { id: '$response.body#/key/id' },
        description: 'Delete the new key',
      },
    },
  },
  updateKey: {
    method: 'PATCH',
    path: '/console/api/keys/:id',
    summary: 'Rename, disable/enable or change limits',
    auth: 'user',
    params: id,
    body: body({ name: Type.Optional(text(64)), disabled: Type.Optional(Type.Boolean()), ...keyLimits }),
    responses: { 200: answer({ key }) },
  },
  deleteKey: {
    method: 'DELETE',
    path: '/console/api/keys/:id',
    summary: 'Delete an API key',
    auth: 'user',
    params: id,
    responses: { 200: answer({ deleted: constant(true), id: rInt }) },
  },
  rotateKey: {
    method: 'POST',
    path: '/console/api/keys/:id/rotate',
    summary: 'New secret for the same key; the old one works for grace_hours (default 24)',
    auth: 'user',
    params: id,
    body: body({ grace_hours: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_GRACE_HOURS })) }),
    responses: { 200: answer({ key, secret: rStr, old_secret_valid_until: orNull(rTime) }) },
  },
});
