// The one error catalogue: every code has exactly one HTTP status and one public message per language
// (core/http/error-text.ts, shared with the browser console). docs/api.md lists them all;
// test/http/errors.test.ts fails when one is missing there.
import { ERROR_TEXT, type ErrorCode, type TextLocale } from './error-text.js';

export { ERROR_TEXT, type ErrorCode, type TextLocale };

/** A specific detail in both languages (core/http/error-details.ts holds them). */
export interface Localized {
  zh: string;
  en: string;
}

/**
 * What a refusal says beyond its code: a Localized detail, or a plain string. A plain string is English (plugins
 * and stages that have no Chinese for it): only an English answer shows it.
 */
export type Detail = string | Localized;

/** Status and the default (en) message of every code. */
export const ERROR_CATALOGUE = Object.fromEntries(
  Object.entries(ERROR_TEXT).map(([code, text]) => [code, { status: text.status, message: text.en.message }]),
) as Record<ErrorCode, { status: number; message: string }>;

export const ERROR_CODES = Object.keys(ERROR_TEXT) as ErrorCode[];

export function statusOf(code: ErrorCode): number {
  return ERROR_CATALOGUE[code].status;
}

/** A refusal decided by a stage: a value, not an exception. */
export interface Denial {
  code: ErrorCode;
  /** Specific message; the catalogue's message is used when absent. */
  message?: Detail;
  /** Seconds, for 429 and 503. */
  retryAfter?: number;
  /** `message` in Chinese, when the source has its own (a configured upstream's error rule). */
  zh?: string;
  /**
   * The operator's technical reason (a plugin failure's `detail`: a network error's host and errno, a provider's
   * raw answer): logged and used to classify the failure, never part of the answer (failureBody reads only
   * `code`, `message` and `zh`).
   */
  detail?: string;
}

export function deny(code: ErrorCode, message?: Detail, retryAfter?: number): Denial {
  return { code, message, retryAfter };
}

/** Raised by console/admin handlers and turned into the same error shape by the error middleware. */
export class ApiError extends Error {
  /** The specific detail as given (Localized or English); undefined: the catalogue's text. */
  readonly detail: Detail | undefined;
  constructor(
    readonly code: ErrorCode,
    message?: Detail,
    readonly status: number = statusOf(code),
  ) {
    super(message === undefined ? ERROR_CATALOGUE[code].message : typeof message === 'string' ? message : message.en);
    this.detail = message;
  }
}

const CJK = /[\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]/;

/**
 * The public message, wholly in the caller's language: a Localized detail in that language, else the catalogue's
 * sentence. A plain (English) detail is shown to English callers only, and not even then when it carries
 * Chinese (a plugin's mixed text): a Chinese answer never holds an English sentence, nor an English one Chinese.
 */
export function localizedMessage(code: ErrorCode, specific: Detail | undefined, locale: TextLocale): string {
  const catalogue = ERROR_TEXT[code][locale].message;
  if (specific === undefined) return catalogue;
  if (typeof specific !== 'string') return specific[locale];
  return locale === 'en' && !CJK.test(specific) ? specific : catalogue;
}
