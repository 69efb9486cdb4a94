// The one catalogue of error codes: status, and in zh and en a message (what happened) and a hint (what to do).
// Pure data with no imports, because the browser console (web/src/i18n) bundles this very file: the API
// envelope and the console's explanations can never drift apart. The en message is the API's default text.
// test/console-web/i18n.test.ts checks every code has both languages, message and hint.
interface Text {
  message: string;
  hint: string;
}

export interface ErrorText {
  status: number;
  zh: Text;
  en: Text;
}

const e = (status: number, zh: [string, string], en: [string, string]): ErrorText => ({
  status,
  zh: { message: zh[0], hint: zh[1] },
  en: { message: en[0], hint: en[1] },
});

export const ERROR_TEXT = {
  INVALID_INPUT: e(
    400,
    ['请求参数无效。', '按文档检查参数的名称、类型和格式；message 中写明了哪一项有问题。本次未扣费。'],
    [
      'The request parameters are not valid.',
      'Check the parameter names, types and formats against the docs; the message says which one is wrong. Nothing was charged.',
    ],
  ),
  MISSING_API_KEY: e(
    401,
    ['缺少 API 密钥：请放在 X-API-Key 请求头或 api_key 参数中。', '在控制台“API 密钥”页创建密钥，并随每次请求发送。'],
    [
      'No API key: send it in the X-API-Key header or the api_key parameter.',
      "Create a key on the console's API keys page and send it with every request.",
    ],
  ),
  INVALID_API_KEY: e(
    401,
    ['API 密钥无效。', '检查密钥是否完整复制；已删除或轮换过期的密钥不能再用，请在控制台换用有效的密钥。'],
    [
      'The API key is not valid.',
      'Check the key was copied whole; a deleted or rotated-out key no longer works: use a current one from the console.',
    ],
  ),
  INSUFFICIENT_BALANCE: e(
    402,
    [
      '余额不足，无法完成本次调用。请充值后继续。',
      '在控制台“账户与充值”页充值、兑换充值码或购买套餐；也可能是密钥的每日消费上限已到。',
    ],
    [
      'The balance is too low for this call. Top up to continue.',
      "Top up, redeem a code or buy a plan on the console's Billing page; the key's daily spending cap may also be reached.",
    ],
  ),
  KEY_DISABLED: e(
    403,
    ['该 API 密钥已停用。', '在控制台重新启用该密钥，或换用其他密钥。'],
    ['This API key is disabled.', 'Enable the key again in the console, or use another key.'],
  ),
  KEY_EXPIRED: e(
    403,
    ['该 API 密钥已过期。', '在控制台延长有效期或创建新密钥。'],
    ['This API key has expired.', 'Extend its expiry in the console or create a new key.'],
  ),
  IP_NOT_ALLOWED: e(
    403,
    ['该 API 密钥不允许从此 IP 地址使用。', '在控制台把调用方的 IP 加入密钥的 IP 白名单。'],
    [
      'This API key may not be used from this IP address.',
      "Add the caller's IP address to the key's allow-list in the console.",
    ],
  ),
  OPERATION_NOT_ALLOWED: e(
    403,
    ['该 API 密钥不允许调用此接口。', '在控制台把此接口加入密钥的可调用接口，或换用其他密钥。'],
    [
      'This API key may not call this operation.',
      "Add this operation to the key's allowed operations in the console, or use another key.",
    ],
  ),
  UNKNOWN_OPERATION: e(
    404,
    ['没有这个接口。', '检查地址中的接口代码；全部接口见文档页。'],
    ['There is no such operation.', 'Check the operation code in the path; the docs page lists them all.'],
  ),
  NOT_FOUND: e(
    404,
    ['上游表示要查的对象不存在。', '检查输入（单号、链接是否已删除）；此结果不扣费。'],
    [
      'The upstream says the requested item does not exist.',
      'Check the input (number, link, deleted post); this answer is not charged.',
    ],
  ),
  IDEMPOTENCY_CONFLICT: e(
    409,
    [
      '此 Idempotency-Key 已用于另一个请求，或该请求仍在处理中。',
      '新请求请换一个新的 Idempotency-Key；重试同一请求时请等第一次完成。',
    ],
    [
      'This Idempotency-Key was used for a different request, or that request is still running.',
      'Use a fresh Idempotency-Key for a new request; when retrying, wait for the first attempt to finish.',
    ],
  ),
  PAYLOAD_TOO_LARGE: e(
    413,
    ['请求体过大。', '缩短输入后重试。'],
    ['The request body is too large.', 'Send a shorter input.'],
  ),
  METHOD_NOT_ALLOWED: e(
    405,
    ['此处不允许该 HTTP 方法；Allow 响应头列出了允许的方法。', '接口调用请用 GET 或 POST。'],
    [
      'This method is not allowed here; the Allow header lists the methods that are.',
      'Call operations with GET or POST.',
    ],
  ),
  REQUEST_TIMEOUT: e(
    408,
    ['未能及时收到完整请求。', '检查网络连接后重新发送。'],
    ['The request was not received in time.', 'Check the connection and send it again.'],
  ),
  UNSUPPORTED_MEDIA_TYPE: e(
    415,
    [
      '不支持的 Content-Type 或 Content-Encoding：请发送 JSON 请求体（application/json）。',
      '把 Content-Type 设为 application/json，且不要压缩请求体。',
    ],
    [
      'Unsupported Content-Type or Content-Encoding: send a JSON body (application/json).',
      'Set Content-Type: application/json and send the body uncompressed.',
    ],
  ),
  HEADERS_TOO_LARGE: e(
    431,
    ['请求行和请求头过大。', '较长的参数（如整段分享文本）请放在 POST 请求体中发送。'],
    [
      'The request line and headers are too large.',
      'Send long parameters (such as pasted share text) in a POST body instead of the URL.',
    ],
  ),
  UNSUPPORTED: e(
    422,
    ['请求格式正确，但此接口不支持。', '查看文档中此接口支持的平台或输入类型。本次未扣费。'],
    [
      'The request is well-formed but not supported by this operation.',
      'See the docs for the platforms or inputs this operation handles. Nothing was charged.',
    ],
  ),
  RATE_LIMITED: e(
    429,
    ['此 API 密钥请求过于频繁。请在 Retry-After 所示时间后重试。', '降低请求频率，或在控制台调高密钥的速率限制。'],
    [
      'Too many requests for this API key. Retry after the time in Retry-After.',
      "Slow down, or raise the key's rate limit in the console.",
    ],
  ),
  CONCURRENCY_LIMITED: e(
    429,
    [
      '此 API 密钥同时进行的调用过多。请在 Retry-After 所示时间后重试。',
      '等前面的调用完成再发新的，或在控制台调高并发上限。',
    ],
    [
      'Too many calls in flight for this API key. Retry after the time in Retry-After.',
      "Wait for earlier calls to finish, or raise the key's concurrency limit in the console.",
    ],
  ),
  UPSTREAM_FAILED: e(
    502,
    ['上游服务出错。', '稍后重试；本次未扣费。'],
    ['The upstream service failed.', 'Retry later; nothing was charged.'],
  ),
  UNAVAILABLE: e(
    503,
    ['服务或接口暂时不可用。', '稍后重试（见 Retry-After）；本次未扣费。'],
    ['The service or operation is unavailable right now.', 'Retry shortly (see Retry-After); nothing was charged.'],
  ),
  OPERATION_UNAVAILABLE: e(
    503,
    ['此接口暂未开通，暂时无法使用。本次未扣费。', '请选用其他接口，或联系服务方开通此接口。'],
    [
      'This operation is not available on this server yet. Nothing was charged.',
      "Use another operation, or ask the service's operator to enable this one.",
    ],
  ),
  UPSTREAM_TIMEOUT: e(
    504,
    ['上游服务未能及时响应。', '稍后重试；本次未扣费。'],
    ['The upstream service did not answer in time.', 'Retry later; nothing was charged.'],
  ),
  UNAUTHORIZED: e(
    401,
    ['请先登录：以 Authorization: Bearer ut_... 发送有效的用户令牌。', '重新登录控制台；登录已过期或已在别处退出。'],
    [
      'Log in first: send a valid user token as Authorization: Bearer ut_...',
      'Log in to the console again; the session expired or was signed out.',
    ],
  ),
  INVALID_CREDENTIALS: e(
    401,
    ['邮箱或密码不正确。', '检查邮箱和密码（区分大小写）；忘记密码可用“忘记密码”重置。'],
    [
      'Wrong email or password.',
      'Check the email and the password (case matters); if you forgot the password, reset it with "Forgot password".',
    ],
  ),
  WRONG_PASSWORD: e(
    401,
    ['当前密码不正确。', '输入本账户现在的登录密码；忘记时可退出后用“忘记密码”重置。'],
    [
      'The current password is wrong.',
      'Enter the password you log in with now; if you forgot it, log out and use "Forgot password".',
    ],
  ),
  WRONG_2FA_CODE: e(
    401,
    ['两步验证码不正确。', '输入验证器应用当前显示的 6 位验证码（检查设备时间是否准确），或输入一个恢复码。'],
    [
      'Wrong authentication code.',
      "Enter the 6-digit code your authenticator app shows now (check the device's clock), or a recovery code.",
    ],
  ),
  FORBIDDEN: e(
    403,
    ['此操作需要管理员权限。', '请用管理员账户登录。'],
    ['This needs the admin role.', 'Log in with an admin account.'],
  ),
  ACCOUNT_DISABLED: e(
    403,
    ['此账户已停用。', '请联系服务方了解原因。'],
    ['This account is disabled.', "Contact the service's operator to learn why."],
  ),
  RESOURCE_NOT_FOUND: e(
    404,
    ['没有这个资源。', '刷新页面；它可能已被删除。'],
    ['There is no such resource.', 'Reload the page; it may have been deleted.'],
  ),
  CONFLICT: e(
    409,
    ['请求与资源的当前状态冲突。', '刷新页面查看最新状态后再试。'],
    [
      'The request conflicts with the current state of the resource.',
      'Reload to see the current state, then try again.',
    ],
  ),
  TOO_MANY_ATTEMPTS: e(
    429,
    ['失败次数过多。请在 Retry-After 所示时间后重试。', '稍后再试；忘记密码可用“忘记密码”重置。'],
    [
      'Too many failed attempts. Retry after the time in Retry-After.',
      'Wait a little; if you forgot the password, reset it with "Forgot password".',
    ],
  ),
  TOO_MANY_REQUESTS: e(
    429,
    ['请求过于频繁。请在 Retry-After 所示时间后重试。', '稍等片刻再试；本次未扣费。'],
    ['Too many requests. Retry after the time in Retry-After.', 'Wait a little, then try again; nothing was charged.'],
  ),
  INVALID_TOKEN: e(
    400,
    ['此链接或验证无效、已过期或已被使用。', '重新申请一封邮件或重新登录。'],
    ['This link or challenge is invalid, has expired or was already used.', 'Ask for a new mail, or log in again.'],
  ),
  EMAIL_NOT_VERIFIED: e(
    403,
    ['请先确认邮箱：点击我们发送的邮件中的链接。', '找不到邮件时请查看垃圾邮件，或重新发送确认邮件。'],
    [
      'Confirm your email first: follow the link in the mail we sent.',
      'Look in the spam folder, or send the confirmation mail again.',
    ],
  ),
  REGISTRATION_CLOSED: e(
    403,
    ['本服务器已关闭注册。', '请联系服务方为你开通账户。'],
    ['Sign-up is closed on this server.', "Ask the service's operator for an account."],
  ),
  EMAIL_DOMAIN_NOT_ALLOWED: e(
    403,
    ['此邮箱域名不开放注册。', '请改用单位邮箱注册，或联系服务方。'],
    [
      'Sign-up is not open to this email domain.',
      "Sign up with your organisation's email address, or contact the operator.",
    ],
  ),
  TWO_FACTOR_REQUIRED: e(
    403,
    ['本服务器要求管理员开启两步验证：请在“安全”页开启。', '在“安全”页开启两步验证后再试。'],
    [
      'This server requires two-factor authentication for admins: turn it on under Security.',
      'Turn on two-factor authentication on the Security page, then try again.',
    ],
  ),
  MAIL_FAILED: e(
    502,
    ['邮件未能发出。', '检查邮件服务器设置后重试。'],
    ['The mail could not be sent.', 'Check the mail server settings and try again.'],
  ),
  INTERNAL: e(
    500,
    [
      '内部错误。反馈问题时请附上请求 ID（request_id）。',
      '稍后重试；若反复出现，请把 request_id 发给服务方。本次未扣费。',
    ],
    [
      'Internal error. Quote the request id when reporting it.',
      'Retry later; if it keeps happening, send the request_id to the operator. Nothing was charged.',
    ],
  ),
} as const satisfies Record<string, ErrorText>;

export type ErrorCode = keyof typeof ERROR_TEXT;
export type TextLocale = 'zh' | 'en';
