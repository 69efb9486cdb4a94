// Account mails in Chinese and English. Each template gives a subject, a plain-text body and an HTML body;
// values are escaped for HTML, and links are built from PUBLIC_URL so they point at this deployment's console.
import type { Locale } from '../locale.js';
import type { MailMessage } from './mailer.js';

export type TemplateName =
  | 'reset'
  | 'verify'
  | 'password_changed'
  | 'two_factor_locked'
  | 'signup_existing'
  | 'test'
  | 'order_pending';

interface Vars {
  link?: string;
  minutes?: number;
  email: string;
  /** order_pending: the order waiting for an admin. */
  order?: { id: number; item: string; amount: string; buyer: string };
}

interface Text {
  subject: string;
  lines: (v: Vars) => string[];
  button?: string;
}

const TEXTS: Record<TemplateName, Record<Locale, Text>> = {
  reset: {
    en: {
      subject: 'Reset your Tollgate password',
      lines: (v) => [
        `Someone (hopefully you) asked to reset the password of ${v.email}.`,
        `Open this link within ${v.minutes} minutes to choose a new password. It works once.`,
        'If you did not ask for this, ignore this mail: your password stays as it is.',
      ],
      button: 'Choose a new password',
    },
    zh: {
      subject: '重置您的 Tollgate 密码',
      lines: (v) => [
        `有人（希望是您本人）请求重置 ${v.email} 的密码。`,
        `请在 ${v.minutes} 分钟内打开下面的链接设置新密码，链接只能使用一次。`,
        '如果不是您本人操作，请忽略此邮件，您的密码不会改变。',
      ],
      button: '设置新密码',
    },
  },
  verify: {
    en: {
      subject: 'Confirm your email for Tollgate',
      lines: (v) => [
        `Welcome! Confirm that ${v.email} is your address to finish signing up.`,
        'The link is valid for 48 hours.',
      ],
      button: 'Confirm email',
    },
    zh: {
      subject: '确认您的 Tollgate 邮箱',
      lines: (v) => [`欢迎！请确认 ${v.email} 是您的邮箱以完成注册。`, '链接 48 小时内有效。'],
      button: '确认邮箱',
    },
  },
  password_changed: {
    en: {
      subject: 'Your Tollgate password was changed',
      lines: (v) => [
        `The password of ${v.email} was just changed and your other sessions were signed out.`,
        'If this was not you, reset your password at once and contact the operator.',
      ],
    },
    zh: {
      subject: '您的 Tollgate 密码已修改',
      lines: (v) => [
        `${v.email} 的密码刚刚被修改，其他登录会话已退出。`,
        '如果不是您本人操作，请立即重置密码并联系管理员。',
      ],
    },
  },
  two_factor_locked: {
    en: {
      subject: 'Many wrong sign-in codes for your Tollgate account',
      lines: (v) => [
        `Someone entered your password for ${v.email} correctly, then many wrong two-factor codes.`,
        'Two-factor sign-in for this account is paused for a while, and the pending sign-ins were cancelled.',
        'If this was not you, your password is known to someone else: change it now.',
      ],
    },
    zh: {
      subject: '您的 Tollgate 账户收到多次错误的验证码',
      lines: (v) => [
        `有人输入了 ${v.email} 的正确密码，随后多次输入错误的两步验证码。`,
        '此账户的两步验证登录已暂停一段时间，未完成的登录已取消。',
        '如果不是您本人操作，说明密码已被他人知道：请立即修改密码。',
      ],
    },
  },
  signup_existing: {
    en: {
      subject: 'Someone tried to sign up to Tollgate with your email',
      lines: (v) => [
        `Someone tried to create a new account with ${v.email}, which already has an account. Nothing was changed.`,
        'If it was you, log in instead; if you forgot the password, use "Forgot password" on the login page.',
      ],
    },
    zh: {
      subject: '有人尝试用您的邮箱注册 Tollgate',
      lines: (v) => [
        `有人尝试用 ${v.email} 注册新账户，但该邮箱已有账户。账户没有任何改动。`,
        '如果是您本人，请直接登录；忘记密码可在登录页使用“忘记密码”。',
      ],
    },
  },
  order_pending: {
    en: {
      subject: 'Order waiting for payment confirmation',
      lines: (v) => [
        `Order ${v.order?.id} (${v.order?.item}, ${v.order?.amount}) by ${v.order?.buyer} waits for a manual payment.`,
        'When the money has arrived, confirm the order in the admin console (Orders); the buyer is credited at once.',
      ],
      button: 'Open the admin console',
    },
    zh: {
      subject: '有订单等待确认收款',
      lines: (v) => [
        `账户 ${v.order?.buyer} 的订单 ${v.order?.id}（${v.order?.item}，${v.order?.amount}）选择了人工付款，正在等待收款。`,
        '收到款项后，请在管理后台的“订单”中确认，买家会立即到账。',
      ],
      button: '打开管理后台',
    },
  },
  test: {
    en: {
      subject: 'Tollgate test mail',
      lines: (v) => [`This test mail to ${v.email} shows that outgoing mail works.`],
    },
    zh: { subject: 'Tollgate 测试邮件', lines: (v) => [`这封发给 ${v.email} 的测试邮件说明发信配置正常。`] },
  },
};

function escapeHtml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

export function renderMail(name: TemplateName, locale: Locale, vars: Vars): MailMessage {
  const t = TEXTS[name][locale];
  const lines = t.lines(vars);
  const text = `${[...lines, ...(vars.link ? ['', vars.link] : [])].join('\n')}\n`;
  const paras = lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('');
  const button =
    vars.link && t.button
      ? `<p><a href="${escapeHtml(vars.link)}">${escapeHtml(t.button)}</a></p><p>${escapeHtml(vars.link)}</p>`
      : '';
  const html = `<!doctype html><html lang="${locale}"><body style="font-family:sans-serif">${paras}${button}</body></html>`;
  return { to: vars.email, subject: t.subject, text, html };
}
