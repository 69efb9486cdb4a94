// The dictionaries of both languages: the page texts (zh.ts, en.ts) plus every error code's message (err.CODE)
// and what to do (hint.CODE), taken from the server's own catalogue (core/http/error-text.ts, bundled here) so
// the console and the API envelope say the same thing. No DOM here: the i18n test imports it under Node.

import { ERROR_TEXT, type ErrorCode } from '../../../core/http/error-text.js';
import { en } from './en.js';
import { type MessageKey as PageKey, zh } from './zh.js';

export { ERROR_TEXT, type ErrorCode };
export type Lang = 'zh' | 'en';
export type MessageKey = PageKey | `err.${ErrorCode}` | `hint.${ErrorCode}`;

function catalogue(l: Lang): Record<`err.${ErrorCode}` | `hint.${ErrorCode}`, string> {
  const out: Record<string, string> = {};
  for (const [code, text] of Object.entries(ERROR_TEXT)) {
    out[`err.${code}`] = text[l].message;
    out[`hint.${code}`] = text[l].hint;
  }
  return out as Record<`err.${ErrorCode}` | `hint.${ErrorCode}`, string>;
}

export const DICTS: Record<Lang, Record<MessageKey, string>> = {
  zh: { ...zh, ...catalogue('zh') },
  en: { ...en, ...catalogue('en') },
};
