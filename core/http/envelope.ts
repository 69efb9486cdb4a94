// The response envelope of every /api call (DESIGN.md section 3). Amounts leave micro-TOKEN only here.
import { ERROR_CATALOGUE, type Denial } from './errors.js';
import { toToken } from '../kernel/money.js';

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

export function successBody(data: unknown, chargedMicro: number, remainingMicro: number, cached: boolean, requestId: string): SuccessBody {
  return { success: true, data, deducted: toToken(chargedMicro), remaining: toToken(remainingMicro), cached, request_id: requestId };
}

export function failureBody(denial: Denial, requestId: string, remainingMicro?: number): FailureBody {
  const body: FailureBody = {
    success: false,
    error: { code: denial.code, message: denial.message ?? ERROR_CATALOGUE[denial.code].message },
    deducted: 0,
    request_id: requestId,
  };
  if (remainingMicro !== undefined) body.remaining = toToken(remainingMicro);
  return body;
}
