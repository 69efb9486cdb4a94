// t('key', {vars}) from the dictionary of the current language. The language is, in order: the choice saved in
// this browser (the console's own switch; localStorage, it is not sensitive), the front page's choice carried
// over in its links (?lang=zh|en), the browser's languages, Chinese. Switching re-renders the page.
import { DICTS, ERROR_TEXT, type ErrorCode, type Lang, type MessageKey } from './dicts.js';

export type { Lang, MessageKey };

const LANG_KEY = 'tollgate.lang';

/** zh, zh-CN, zh-Hant-TW -> zh; en, en-GB -> en; anything else -> undefined. The server's parseLocale rule. */
export function langOf(tag: string | null | undefined): Lang | undefined {
  const v = (tag ?? '').trim().toLowerCase();
  if (v === 'zh' || v.startsWith('zh-')) return 'zh';
  if (v === 'en' || v.startsWith('en-')) return 'en';
  return undefined;
}

/** The first language of the list the console speaks (navigator.languages is in the user's order). */
export function pickLang(saved: string | null, asked: string | null, browser: readonly string[]): Lang {
  if (saved === 'zh' || saved === 'en') return saved;
  const carried = langOf(asked);
  if (carried) return carried;
  for (const tag of browser) {
    const l = langOf(tag);
    if (l) return l;
  }
  return 'zh';
}

function initialLang(): Lang {
  let saved: string | null = null;
  try {
    saved = window.localStorage.getItem(LANG_KEY);
  } catch {
    // storage blocked: the other sources decide
  }
  const browser = navigator.languages?.length ? navigator.languages : [navigator.language];
  return pickLang(saved, new URLSearchParams(location.search).get('lang'), browser);
}

/** What <html lang> says for a console language. */
export function htmlLang(l: Lang): string {
  return l === 'zh' ? 'zh-CN' : 'en';
}

let lang: Lang = initialLang();
const listeners: Array<() => void> = [];

export function getLang(): Lang {
  return lang;
}

export function setLang(next: Lang): void {
  if (next === lang) return;
  lang = next;
  try {
    window.localStorage.setItem(LANG_KEY, next);
  } catch {
    // not persisted; the switch still applies to this page
  }
  document.documentElement.lang = htmlLang(next);
  for (const fn of listeners) fn();
}

export function onLangChange(fn: () => void): void {
  listeners.push(fn);
}

export function t(key: MessageKey, vars?: Record<string, string | number>): string {
  const text = DICTS[lang][key] ?? key;
  return vars ? text.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m)) : text;
}

/**
 * An error code's message and what to do about it, in the UI language; undefined for a code not in the
 * catalogue. Where the hint sends the customer to a console page, the console names that page as its
 * navigation does (consoleHint.*), rather than the API's generic wording.
 */
export function errorInfo(code: string): { message: string; hint: string } | undefined {
  const text = (ERROR_TEXT as Record<string, (typeof ERROR_TEXT)[ErrorCode]>)[code];
  if (!text) return undefined;
  const own = tMaybe(`consoleHint.${code}`);
  return { message: text[lang].message, hint: own ? own.replace('{page}', t('nav.billing')) : text[lang].hint };
}

/** For keys built from data (error codes, ledger kinds): the key when present, else undefined. */
export function tMaybe(key: string): string | undefined {
  return (DICTS[lang] as Record<string, string>)[key];
}
