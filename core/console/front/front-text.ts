// The words of the public front page (/) in Chinese and English. Operation names and descriptions come from
// operations.yaml (`name`/`description` as {zh, en}); everything else a visitor reads is here.
import type { Locale } from '../../accounts/locale.js';

export interface FrontText {
  htmlLang: string;
  title: string;
  tagline: string;
  lead: string;
  ctaStart: string;
  /** Shown under the sign-up button when operations.yaml `signup.trial_tokens` (or TRIAL_CREDIT) is above 0. */
  trialOffer: (tokens: string) => string;
  ctaDocs: string;
  ctaLogin: string;
  otherLang: string;
  pricesTitle: string;
  pricesNote: string;
  perCall: string;
  per1000: (price: string) => string;
  unavailable: string;
  noOperations: string;
  plansTitle: string;
  plansNote: string;
  planLine: (p: {
    days: number;
    calls: string;
    concurrency: number | null;
    cacheFree: boolean;
    grant: string;
  }) => string;
  perPeriod: (days: number) => string;
  packagesTitle: string;
  packagesNote: string;
  packageLine: (tokens: string) => string;
  tryTitle: string;
  tryNote: string;
  tryAnswer: string;
  linksTitle: string;
  linkDocs: string;
  linkOpenapi: string;
  linkConsole: string;
  linkRegister: string;
  footer: string;
}

const ZH: FrontText = {
  htmlLang: 'zh-CN',
  title: 'Tollgate 数据接口',
  tagline: '按次计费的数据 API',
  lead: '注册账号、创建密钥即可调用。只有成功的调用才扣费，失败不收费；1 TOKEN = 1 元，先充值后使用，也可购买套餐获得每日免费额度。',
  ctaStart: '免费注册',
  trialOffer: (tokens) => `注册即送 ${tokens} TOKEN，无需充值即可试用。`,
  ctaDocs: '接口文档',
  ctaLogin: '登录控制台',
  otherLang: 'English',
  pricesTitle: '接口与价格',
  pricesNote: '价格为每次成功调用扣除的 TOKEN；缓存命中同样按次计费，套餐内的缓存命中免费。',
  perCall: '/ 次',
  per1000: (price) => `约 ¥${price} / 千次`,
  unavailable: '暂不可用',
  noOperations: '暂无可调用的接口。',
  plansTitle: '套餐',
  plansNote: '套餐期内每天有免费调用额度，超出部分按次从余额扣费。',
  planLine: (p) =>
    `${p.days} 天 · 每天 ${p.calls} 次免费调用` +
    (p.concurrency === null ? '' : ` · 同时最多 ${p.concurrency} 个`) +
    (p.cacheFree ? ' · 缓存命中免费' : '') +
    (p.grant !== '0' ? ` · 赠送 ${p.grant} TOKEN` : ''),
  perPeriod: (days) => `/ ${days} 天`,
  packagesTitle: 'TOKEN 充值包',
  packagesNote: 'TOKEN 永久有效，按次扣费。',
  packageLine: (tokens) => `到账 ${tokens} TOKEN`,
  tryTitle: '试一试',
  tryNote: '在控制台创建密钥，把 sk_your_key 换成你的密钥：',
  tryAnswer: '返回（每个接口的字段说明见接口文档）：',
  linksTitle: '接下来',
  linkDocs: '接口文档：每个接口的参数、返回字段和示例',
  linkOpenapi: 'OpenAPI 3.1 文档（可生成任意语言的客户端）',
  linkConsole: '控制台：密钥、在线调试、用量、充值',
  linkRegister: '注册账号',
  footer: '由 Tollgate 提供',
};

const EN: FrontText = {
  htmlLang: 'en',
  title: 'Tollgate data APIs',
  tagline: 'Data APIs, paid per call',
  lead: 'Sign up, create a key and call. Only successful calls are charged, failures are free; 1 TOKEN = 1 CNY, prepaid, or take a plan for a free daily allowance.',
  ctaStart: 'Sign up free',
  trialOffer: (tokens) => `${tokens} TOKEN free on sign-up: try any operation before you top up.`,
  ctaDocs: 'API docs',
  ctaLogin: 'Log in to the console',
  otherLang: '中文',
  pricesTitle: 'Operations and prices',
  pricesNote:
    'Prices are TOKEN per successful call; cache hits are charged too, except within a plan that makes them free.',
  perCall: '/ call',
  per1000: (price) => `about ¥${price} per 1,000 calls`,
  unavailable: 'Unavailable',
  noOperations: 'No operations are offered yet.',
  plansTitle: 'Plans',
  plansNote:
    'A plan gives free calls every day while it runs; calls beyond them are charged per call from the balance.',
  planLine: (p) =>
    `${p.days} days · ${p.calls} free calls a day` +
    (p.concurrency === null ? '' : ` · up to ${p.concurrency} at a time`) +
    (p.cacheFree ? ' · cache hits free' : '') +
    (p.grant !== '0' ? ` · ${p.grant} TOKEN included` : ''),
  perPeriod: (days) => `/ ${days} days`,
  packagesTitle: 'TOKEN packages',
  packagesNote: 'TOKEN never expire and are spent per call.',
  packageLine: (tokens) => `${tokens} TOKEN credited`,
  tryTitle: 'Try it',
  tryNote: 'Create a key in the console and put it in place of sk_your_key:',
  tryAnswer: 'The answer (each operation’s fields are in the API docs):',
  linksTitle: 'Where next',
  linkDocs: 'API docs: parameters, response fields and examples of every operation',
  linkOpenapi: 'OpenAPI 3.1 document (generate a client in any language)',
  linkConsole: 'Console: keys, the API debugger, usage, top-up',
  linkRegister: 'Create an account',
  footer: 'Powered by Tollgate',
};

export function frontText(lang: Locale): FrontText {
  return lang === 'zh' ? ZH : EN;
}
