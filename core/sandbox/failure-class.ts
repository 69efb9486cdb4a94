// Why an upstream call failed, in the few classes an operator acts on differently: the platform changed its page
// (fix the plugin), a bot wall or risk control (wait, change egress), a credential (renew it), a quota (buy more),
// a timeout or the network (look at the path there), or the sample itself is gone (replace the canary's link).
// Plugins describe failures in their public message (which step failed) and their operator-only `detail` (why:
// the errno, the provider's answer); the class is read from the code and that text.

export const FAILURE_CLASSES = [
  'shape_changed',
  'risk_control',
  'credential',
  'quota',
  'timeout',
  'network',
  'sample_gone',
  'upstream_error',
] as const;
export type FailureClass = (typeof FAILURE_CLASSES)[number];

// Order matters: a bot wall reached by a redirect is risk control even when the message also says "page".
const RULES: Array<[FailureClass, RegExp]> = [
  [
    'risk_control',
    /captcha|bot wall|anti-bot|risk control|rate-limited|throttled|verification page|安全限制|安全验证|访问频繁|\bHTTP (?:412|418|429|461|471)\b|error_code 3000\d\d|result 2001|code -412|signature check failed/i,
  ],
  [
    'credential',
    /\bHTTP 40[13]\b|unauthori[sz]ed|forbidden|invalid (?:api )?key|bad key|key (?:expired|invalid)|cookie (?:expired|invalid)|签名|密钥|appkey|returnCode 60[01]|鉴权|认证失败/i,
  ],
  ['quota', /quota|余额不足|次数已用完|套餐|超出.*(?:限制|上限)|insufficient (?:balance|credit)|out of credit/i],
  ['network', /fetch failed|ECONNRESET|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|socket hang up|network|TLS|certificate/i],
  ['shape_changed', /changed (?:shape|layout)|shape changed|unexpected shape|not the expected JSON|has no [A-Za-z_]/i],
];

/** The class of a failed upstream call (a plugin failure: its error code and message); null for the caller's own errors. */
export function classifyFailure(code: string, message: string | undefined): FailureClass | null {
  if (code === 'UPSTREAM_TIMEOUT') return 'timeout';
  if (code === 'NOT_FOUND') return 'sample_gone';
  if (code !== 'UPSTREAM_FAILED') return null;
  const text = message ?? '';
  for (const [cls, re] of RULES) if (re.test(text)) return cls;
  return 'upstream_error';
}
