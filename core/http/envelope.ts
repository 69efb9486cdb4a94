// The response envelope of every /api call (docs/api.md "Responses"). Amounts leave micro-TOKEN only here.

import { localeFromAcceptLanguage } from '../accounts/locale.js';
import { toToken } from '../kernel/money.js';
import { type Denial, localizedMessage, type TextLocale } from './errors.js';

/** The language of an error message: Accept-Language when it names zh or en, else English (the API's default). */
export function callerLocale(acceptLanguage: string | undefined): TextLocale {
  return localeFromAcceptLanguage(acceptLanguage) ?? 'en';
}

export interface SuccessBody {
  success: true;
  data: unknown;
  deducted: number;
  remaining: number;
  cached: boolean;
  request_id: string;
}

export interface FailureBody {
  success: false;
  error: { code: string; message: string };
  deducted: 0;
  remaining?: number;
  request_id: string;
}

export function successBody(
  data: unknown,
  chargedMicro: number,
  remainingMicro: number,
  cached: boolean,
  requestId: string,
): SuccessBody {
  return {
    success: true,
    data,
    deducted: toToken(chargedMicro),
    remaining: toToken(remainingMicro),
    cached,
    request_id: requestId,
  };
}

/** `locale`: the caller's language (Accept-Language); English when it names neither. */
export function failureBody(
  denial: Denial,
  requestId: string,
  remainingMicro?: number,
  locale: TextLocale = 'en',
): FailureBody {
  const body: FailureBody = {
    success: false,
    error: {
      code: denial.code,
      message: locale === 'zh' && denial.zh ? denial.zh : localizedMessage(denial.code, denial.message, locale),
    },
    deducted: 0,
    request_id: requestId,
  };
  if (remainingMicro !== undefined) body.remaining = toToken(remainingMicro);
  return body;
}
