// The specific details core's refusals add to a code's catalogue sentence, each in Chinese and English, so an
// answer is wholly in the caller's language (errors.ts localizedMessage). Values put into them (a parameter
// name, an amount, an address) are data and stay as given. test/http/error-language.test.ts walks every entry.
import type { InputProblem } from '../registry/input-validator.js';
import type { Localized } from './errors.js';

const L = (zh: string, en: string): Localized => ({ zh, en });

/** passwordWeakness (core/accounts/passwords.ts) reasons, in Chinese. */
const WEAK_ZH: Record<string, string> = {
  'password must be at least 8 characters': '密码至少 8 位',
  'password must be at most 200 characters': '密码最多 200 位',
  'password must contain letters and digits': '密码须同时包含字母和数字',
};

/** Per-IP budgets of the account endpoints (core/console/api/auth-limits.ts). */
const BUDGET_TEXT: Record<string, Localized> = {
  login: L('此地址的登录请求过多', 'Too many login requests from this address'),
  register: L('此地址的注册次数过多', 'Too many sign-ups from this address'),
  keyCreate: L('此地址创建的 API 密钥过多', 'Too many API keys created from this address'),
  passwordReset: L(
    '此地址的重置密码或邮箱确认请求过多',
    'Too many password-reset or email-confirmation requests from this address',
  ),
};

export const DETAILS = {
  // Edge: body, path, method.
  badJson: () => L('请求体不是有效的 JSON。', 'The request body is not valid JSON.'),
  methodNotAllowed: (where: string, allow: string) =>
    L(`${where} 不允许此方法；允许的方法：${allow}。`, `${where} is not allowed; allowed: ${allow}.`),
  nothingAt: (where: string) => L(`${where} 处没有内容。`, `There is nothing at ${where}.`),
  bodyTooLarge: () => L('请求体超过 256 KB。', 'The request body is over 256 KB.'),
  badEncoding: (encoding: string) =>
    L(
      `不支持的 Content-Encoding “${encoding}”：请用 gzip、deflate、br 或不压缩。`,
      `Unsupported Content-Encoding "${encoding}": send gzip, deflate, br or none.`,
    ),
  badEncodedBody: (encoding: string) =>
    L(
      `请求体不是有效的 ${encoding} 数据（Content-Encoding）；未执行，未扣费。`,
      `The request body is not valid ${encoding} data (Content-Encoding); nothing was run or charged.`,
    ),
  consoleJsonOnly: (got: string) =>
    L(
      `控制台接口只接受 JSON：请设置 Content-Type: application/json（收到 “${got}”）。`,
      `The console API takes JSON: send Content-Type: application/json (got "${got}").`,
    ),

  // Console input (core/console/api/input.ts, core/console/routes/input-checks.ts).
  bodyNotObject: () => L('请求体必须是 JSON 对象。', 'The request body must be a JSON object.'),
  unknownField: (name: string, allowed: string) =>
    L(`未知字段 '${name}'；可用字段：${allowed}。`, `Unknown field '${name}'; allowed: ${allowed}.`),
  requiredString: (name: string) =>
    L(`'${name}' 必填，且须为非空字符串。`, `'${name}' is required and must be a non-empty string.`),
  required: (name: string) => L(`'${name}' 必填。`, `'${name}' is required.`),
  tooLong: (name: string, max: number | string) =>
    L(`'${name}' 最多 ${max} 个字符。`, `'${name}' must be at most ${max} characters.`),
  oneOf: (name: string, values: string) =>
    L(`'${name}' 须为以下之一：${values}。`, `'${name}' must be one of ${values}.`),
  intRange: (name: string, min: number | string, max: number | string) =>
    L(`'${name}' 须为 ${min} 到 ${max} 之间的整数。`, `'${name}' must be an integer from ${min} to ${max}.`),
  boolean: (name: string) => L(`'${name}' 须为 true 或 false。`, `'${name}' must be true or false.`),
  fieldInvalid: (name: string) => L(`'${name}' 的值无效。`, `'${name}' is invalid.`),
  tokenAmount: (name: string) =>
    L(`'${name}' 须为 TOKEN 数额，例如 12.5。`, `'${name}' must be a TOKEN amount, e.g. 12.5.`),
  tokenRange: (name: string, max: number) =>
    L(
      `'${name}' 须为 -${max} 到 ${max} 之间、最多 6 位小数的 TOKEN 数额，例如 12.5。`,
      `'${name}' must be a TOKEN amount from -${max} to ${max} with at most 6 decimals, e.g. 12.5.`,
    ),
  isoDate: (name: string) =>
    L(
      `'${name}' 须为 ISO 8601 日期，例如 2030-01-31 或 2030-01-31T12:00:00Z。`,
      `'${name}' must be an ISO 8601 date, e.g. 2030-01-31 or 2030-01-31T12:00:00Z.`,
    ),
  notRealDate: (name: string, value: string) =>
    L(`'${name}' 不是真实存在的日期：${value}。`, `'${name}' is not a real date: ${value}.`),
  noSuchId: (what: string, value: string) => L(`没有编号为 “${value}” 的记录。`, `There is no ${what} "${value}".`),

  // Accounts.
  emailInvalid: (problem: string) =>
    L("'email' 不是有效的邮箱地址。", `'email' is not a valid email address (${problem}).`),
  locale: () => L("'locale' 须为 zh 或 en。", "'locale' must be zh or en."),
  weakPassword: (reason: string) =>
    L(`密码太弱：${WEAK_ZH[reason] ?? '至少 8 位，且须同时包含字母和数字'}。`, `Weak password: ${reason}.`),
  emailTaken: () =>
    L(
      '此邮箱无法用这个密码注册。如果账户是你的，请直接登录。',
      'This email cannot be registered with this password. If the account is yours, log in.',
    ),
  challengeInvalid: () =>
    L('登录验证已失效或已过期，请重新登录。', 'The login challenge is invalid or has expired. Log in again.'),
  challengeUsed: () => L('登录验证已被使用，请重新登录。', 'The login challenge was already used. Log in again.'),
  badLink: () =>
    L(
      '此链接无效、已过期或已被使用，请重新申请。',
      'This link is invalid, has expired or was already used. Ask for a new one.',
    ),
  tokenMalformed: () =>
    L(
      '登录令牌格式无效（应为 ut_ 加 43 个字符），请重新登录。',
      'The user token is not valid: tokens look like ut_ followed by 43 characters.',
    ),
  tokenUnknown: () => L('登录令牌无效，请重新登录。', 'The user token is not valid. Log in again.'),
  tokenExpired: () => L('登录已过期，请重新登录。', 'The user token has expired. Log in again.'),
  tokenRevoked: () => L('此登录已退出，请重新登录。', 'The user token was revoked (logged out). Log in again.'),
  ipBudget: (name: string, seconds: number) => {
    const t = BUDGET_TEXT[name] ?? BUDGET_TEXT.login;
    return L(`${t.zh}，请 ${seconds} 秒后重试。`, `${t.en}. Retry in ${seconds} seconds.`);
  },
  loginInProgress: () =>
    L(
      '此地址已有一个登录正在处理，请 1 秒后重试。',
      'A login from this address is already in progress. Retry in 1 second.',
    ),
  loginsBusy: () =>
    L('当前待核对的登录过多，请 1 秒后重试。', 'Too many logins are being checked right now. Retry in 1 second.'),
  failedLogins: (scope: 'ip' | 'email', seconds: number) =>
    scope === 'ip'
      ? L(
          `此地址登录失败次数过多，请 ${seconds} 秒后重试。`,
          `Too many failed logins from this address. Retry in ${seconds} seconds.`,
        )
      : L(
          `此邮箱在此地址登录失败次数过多，请 ${seconds} 秒后重试。`,
          `Too many failed logins for this email from this address. Retry in ${seconds} seconds.`,
        ),
  twoFactorOnEnrol: () =>
    L(
      '两步验证已开启；要绑定新设备，请先关闭。',
      'Two-factor authentication is already on. Turn it off first to enrol a new device.',
    ),
  twoFactorOn: () => L('两步验证已开启。', 'Two-factor authentication is already on.'),
  twoFactorOff: () => L('两步验证未开启。', 'Two-factor authentication is not on.'),
  twoFactorSetupFirst: () =>
    L('请先开始设置两步验证（POST /console/api/me/2fa/setup）。', 'Start with POST /console/api/me/2fa/setup.'),
  adminNeeds2fa: () =>
    L(
      '本服务器要求管理员开启两步验证，不能关闭。',
      'This server requires two-factor authentication for admins; it cannot be turned off.',
    ),
  keyLimit: (max: number) =>
    L(`每个账户最多 ${max} 个 API 密钥；请先删除一个。`, `At most ${max} API keys per account; delete one first.`),

  // /api calls (core/pipeline).
  keyFormat: () =>
    L(
      'API 密钥无效：密钥应为 sk_ 加 43 个字符。',
      'The API key is not valid: keys look like sk_ followed by 43 characters.',
    ),
  keyOwnerDisabled: () => L('此 API 密钥所属的账户已停用。', 'The account this API key belongs to is disabled.'),
  keyExpiredAt: (iso: string) => L(`此 API 密钥已于 ${iso} 过期。`, `This API key expired at ${iso}.`),
  ipNotAllowed: (ip: string) => L(`此 API 密钥不允许从 ${ip} 使用。`, `This API key may not be used from ${ip}.`),
  unknownOperation: (code: string) =>
    L(
      `没有接口 “${code}”。全部接口见 GET /console/api/operations。`,
      `There is no operation "${code}". The list is at GET /console/api/operations.`,
    ),
  badPercent: () =>
    L(
      '路径中的百分号编码有误（% 后须是两位十六进制数字，且为有效的 UTF-8）。',
      'The path has malformed percent-encoding (a % not followed by two hex digits of valid UTF-8).',
    ),
  operationNotAllowed: (code: string) => L(`此 API 密钥不允许调用 “${code}”。`, `This API key may not call "${code}".`),
  rateLimit: (rate: number, burst: number) =>
    L(
      `此密钥已达到速率限制：每秒 ${rate} 次（突发 ${burst} 次）。`,
      `Rate limit of ${rate}/s (burst ${burst}) reached for this key.`,
    ),
  concurrency: (cap: number) =>
    L(`此密钥最多同时进行 ${cap} 个调用。`, `At most ${cap} calls may be in flight for this key.`),
  apiBodyType: () =>
    L(
      '不支持的 Content-Type：请发送 application/json 或 application/x-www-form-urlencoded。',
      'Unsupported Content-Type: send application/json or application/x-www-form-urlencoded.',
    ),
  apiBodyObject: () => L('JSON 请求体必须是参数对象。', 'The JSON body must be an object of parameters.'),
  paramTwice: (name: string, where: 'query' | 'path') =>
    where === 'query'
      ? L(
          `参数 '${name}' 在查询字符串和请求体中同时出现。`,
          `parameter '${name}' is given in both the query and the body`,
        )
      : L(`参数 '${name}' 在路径和请求中同时出现。`, `parameter '${name}' is given in both the path and the request`),
  invalidParams: (code: string, problem: InputProblem) => {
    const p = inputProblem(problem);
    return L(`${code} 的参数无效：${p.zh}。`, `Invalid input for ${code}: ${p.en}.`);
  },
  missingParam: (name: string) => L(`缺少必填参数 '${name}'`, `missing required parameter '${name}'`),
  unknownParam: (name: string) => L(`未知参数 '${name}'`, `unknown parameter '${name}'`),
  paramType: (name: string, type: string) => {
    const t = TYPE_NAMES[type];
    return t
      ? L(`参数 '${name}' 须为${t.zh}`, `parameter '${name}' must be ${t.en}`)
      : L(`参数 '${name}' 须为 ${type} 类型`, `parameter '${name}' must be of type ${type}`);
  },
  paramEnum: (name: string, values: string) =>
    L(`参数 '${name}' 须为以下之一：${values}`, `parameter '${name}' must be one of: ${values}`),
  /** `about`: the field's own description (what it takes), when the schema has one; its zh only for zh. */
  paramFormat: (name: string, about?: { en: string; zh?: string }) =>
    L(
      `参数 '${name}' 格式不正确${about?.zh ? `（应为：${about.zh.replace(/[。.]$/, '')}）` : ''}`,
      `parameter '${name}' has an invalid format${about ? ` (expected: ${about.en.replace(/\.$/, '')})` : ''}`,
    ),
  paramNoForm: (name: string | null) =>
    name === null
      ? L('输入不符合任何一种可接受的形式', 'the input does not match any accepted form')
      : L(`参数 '${name}' 不符合任何一种可接受的形式`, `parameter '${name}' does not match any accepted form`),
  paramMinLength: (name: string, limit: number) =>
    L(
      `参数 '${name}' 至少 ${limit} 个字符`,
      `parameter '${name}' must be at least ${limit} character${limit === 1 ? '' : 's'} long`,
    ),
  paramMaxLength: (name: string, limit: number) =>
    L(
      `参数 '${name}' 最多 ${limit} 个字符`,
      `parameter '${name}' must be at most ${limit} character${limit === 1 ? '' : 's'} long`,
    ),
  paramMinimum: (name: string, limit: number) =>
    L(`参数 '${name}' 不能小于 ${limit}`, `parameter '${name}' must be at least ${limit}`),
  paramMaximum: (name: string, limit: number) =>
    L(`参数 '${name}' 不能大于 ${limit}`, `parameter '${name}' must be at most ${limit}`),
  paramInvalid: (name: string) => L(`参数 '${name}' 的值无效`, `parameter '${name}' has an invalid value`),
  idempotencyKeyFormat: () =>
    L('Idempotency-Key 须为 1 到 255 个可见 ASCII 字符。', 'Idempotency-Key must be 1-255 visible ASCII characters.'),
  idempotencyMismatch: () =>
    L('此 Idempotency-Key 已用于另一个不同的请求。', 'This Idempotency-Key was already used with a different request.'),
  idempotencyRunning: () =>
    L(
      '使用此 Idempotency-Key 的请求仍在处理中；请等它完成后再重试。',
      'A request with this Idempotency-Key is still running; retry when it has finished.',
    ),
  idempotencyLeaseLost: () =>
    L(
      '此调用超过了 Idempotency-Key 的租期，重试已接管该键；此调用未扣费。',
      'This call outlived its Idempotency-Key lease and a retry took the key over; this call was not charged.',
    ),
  costsMore: (price: number) =>
    L(
      `本次调用需 ${price} TOKEN，可用余额不足。请充值后继续。`,
      `This call costs ${price} TOKEN and the available balance is lower. Top up to continue.`,
    ),
  dailyCap: (cap: number) =>
    L(
      `此密钥当日消费上限 ${cap} TOKEN 已用完；北京时间（UTC+8）零点重置。`,
      `This key's daily spending cap of ${cap} TOKEN is reached; it resets at midnight China time (UTC+8).`,
    ),
  countersDown: () =>
    L(
      '暂时无法核对消费上限和套餐额度；本次未扣费，请稍后重试。',
      'Spending caps and plan quotas cannot be checked right now; nothing was charged. Retry shortly.',
    ),
  billingDown: () =>
    L(
      '计费数据库暂时不可用；本次未扣费，请稍后重试。',
      'The billing database is unavailable right now; nothing was charged. Retry shortly.',
    ),
  balanceRequests: () =>
    L(
      '此 API 密钥查询余额过于频繁。请在 Retry-After 所示时间后重试。',
      'Too many balance requests for this API key. Retry after the time in Retry-After.',
    ),
  databaseDown: () => L('数据库暂时不可用，请稍后重试。', 'The database is unavailable right now. Retry shortly.'),
} as const;

/** JSON Schema type names as a sentence says them. */
const TYPE_NAMES: Record<string, Localized> = {
  number: { zh: '数字', en: 'a number' },
  integer: { zh: '整数', en: 'a whole number' },
  string: { zh: '文本', en: 'text' },
  boolean: { zh: ' true 或 false', en: 'true or false' },
  object: { zh: '对象', en: 'an object' },
  array: { zh: '列表', en: 'a list' },
};

function inputProblem(p: InputProblem): Localized {
  switch (p.kind) {
    case 'missing':
      return DETAILS.missingParam(p.name);
    case 'unknown':
      return DETAILS.unknownParam(p.name);
    case 'format':
      return DETAILS.paramFormat(p.name, p.about);
    case 'type':
      return DETAILS.paramType(p.name, p.type);
    case 'enum':
      return DETAILS.paramEnum(p.name, p.values);
    case 'noForm':
      return DETAILS.paramNoForm(p.name);
    case 'minLength':
      return DETAILS.paramMinLength(p.name, p.limit);
    case 'maxLength':
      return DETAILS.paramMaxLength(p.name, p.limit);
    case 'minimum':
      return DETAILS.paramMinimum(p.name, p.limit);
    case 'maximum':
      return DETAILS.paramMaximum(p.name, p.limit);
    default:
      return DETAILS.paramInvalid(p.name);
  }
}
