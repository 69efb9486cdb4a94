// The one error catalogue: every code has exactly one HTTP status and one public message per language
// (core/http/error-text.ts, shared with the browser console). docs/api.md lists them all;
// test/http/errors.test.ts fails when one is missing there.
import { ERROR_TEXT, type ErrorCode, type TextLocale } from './error-text.js';

export { ERROR_TEXT, type ErrorCode, type TextLocale };

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
  message?: string;
  /** Seconds, for 429 and 503. */
  retryAfter?: number;
  /** `message` in Chinese, when the source has its own (a configured upstream's error rule). */
  zh?: string;
}

export function deny(code: ErrorCode, message?: string, retryAfter?: number): Denial {
  return { code, message, retryAfter };
}

/** Raised by console/admin handlers and turned into the same error shape by the error middleware. */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly status: number = statusOf(code),
  ) {
    super(message ?? ERROR_CATALOGUE[code].message);
  }
}

/**
 * The public message in the caller's language. English keeps the specific text (plugins and stages write it in
 * English); Chinese leads with the catalogue's Chinese text and keeps a specific detail after it, in brackets.
 */
export function localizedMessage(code: ErrorCode, specific: string | undefined, locale: TextLocale): string {
  const en = ERROR_TEXT[code].en.message;
  if (locale === 'en') return specific ?? en;
  const zh = ERROR_TEXT[code].zh.message;
  return specific && specific !== en ? `${zh}（${specific}）` : zh;
}
