// t('key', {vars}) from the dictionary of the current language. Chinese by default; the choice is kept in
// localStorage (it is not sensitive) and switching re-renders the page.
import { DICTS, ERROR_TEXT, type ErrorCode, type Lang, type MessageKey } from './dicts.js';

export type { Lang, MessageKey };

const LANG_KEY = 'tollgate.lang';

function initialLang(): Lang {
  try {
    const saved = window.localStorage.getItem(LANG_KEY);
    if (saved === 'zh' || saved === 'en') return saved;
  } catch {
    // storage blocked: fall through to the default
  }
  return 'zh';
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
  document.documentElement.lang = next === 'zh' ? 'zh-CN' : 'en';
  for (const fn of listeners) fn();
}

export function onLangChange(fn: () => void): void {
  listeners.push(fn);
}

export function t(key: MessageKey, vars?: Record<string, string | number>): string {
  const text = DICTS[lang][key] ?? key;
  return vars ? text.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m)) : text;
}

/** An error code's message and what to do about it, in the UI language; undefined for a code not in the catalogue. */
export function errorInfo(code: string): { message: string; hint: string } | undefined {
  const text = (ERROR_TEXT as Record<string, (typeof ERROR_TEXT)[ErrorCode]>)[code];
  return text ? { message: text[lang].message, hint: text[lang].hint } : undefined;
}

/** For keys built from data (error codes, ledger kinds): the key when present, else undefined. */
export function tMaybe(key: string): string | undefined {
  return (DICTS[lang] as Record<string, string>)[key];
}
