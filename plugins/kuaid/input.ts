// The call's input after the schema: the tracking number normalised, `com` resolved, `phone` cleaned.
import { type Courier, findCourier, unknownCourier } from './couriers.js';
import { normaliseNumber } from './detect.js';
import { said, type TwoLanguages } from './two-languages.js';

export interface KuaidInput {
  no: string;
  com?: string;
  phone?: string;
}

export interface ParsedInput {
  no: string;
  /** The caller's courier, when `com` was given (skips detection). */
  courier: Courier | null;
  /** `com` named a courier of our table (or an alias); false for a code only Kuaidi100 may know. */
  courierKnown: boolean;
  phone: string | null;
}

export type Parsed = { ok: true; value: ParsedInput } | ({ ok: false } & TwoLanguages);

const refuse = (message: string, message_zh: string): Parsed => ({ ok: false, ...said(message, message_zh) });

export function parseInput(input: KuaidInput): Parsed {
  if (typeof input.no !== 'string') return refuse('no (the tracking number) is required', '缺少 no（快递单号）');
  const no = normaliseNumber(input.no);
  if (!no.ok) return refuse(no.reason, no.reason_zh);

  let courier: Courier | null = null;
  let courierKnown = false;
  if (input.com !== undefined && input.com !== '') {
    const com = String(input.com).trim().toLowerCase();
    if (!/^[a-z0-9]+$/.test(com)) {
      const shown = com.slice(0, 40);
      return refuse(
        `com "${shown}" must be a courier code such as shunfeng or zhongtong`,
        `com "${shown}" 必须是快递公司编码，如 shunfeng、zhongtong`,
      );
    }
    const known = findCourier(com);
    courierKnown = known !== undefined;
    courier = known ?? unknownCourier(com);
  }

  let phone: string | null = null;
  if (input.phone !== undefined && input.phone !== '') {
    // Tolerate the usual decorations of a Chinese number; the carrier only compares digits.
    const digits = String(input.phone)
      .replace(/[\s-]/g, '')
      .replace(/^\+?86(?=\d{11}$)/, '');
    if (!/^\d{4,20}$/.test(digits)) {
      return refuse('phone must be the full number or its last 4 digits', 'phone 须为完整手机号或手机号后 4 位');
    }
    phone = digits;
  }
  return { ok: true, value: { no: no.no, courier, courierKnown, phone } };
}

/** The INVALID_INPUT message for a courier that checks phones. */
export function phoneRequiredMessage(c: Courier): TwoLanguages {
  return {
    message: `${c.en} requires the phone number (or its last 4 digits) of the sender or receiver: pass phone=`,
    message_zh: `${c.zh}需要寄件人或收件人的手机号（或手机号后 4 位）：请传 phone=`,
  };
}

const KNOWN_CODES = 'shunfeng, zhongtong, yuantong, yunda, shentong, jtexpress, jd, ems, youzhengguonei, debangkuaidi';

/** The INVALID_INPUT message for a `com` we cannot look up (detect mode has nobody else to ask). */
export function unknownComMessage(com: string): TwoLanguages {
  const code = com.slice(0, 40);
  return {
    message: `com "${code}" is not a courier code we know: use a Kuaidi100 code such as ${KNOWN_CODES}, or leave com out to detect the courier`,
    message_zh: `未知的快递公司编码 "${code}"：请使用快递100的编码（如 ${KNOWN_CODES.replaceAll(', ', '、')}），或不传 com 以自动识别快递公司`,
  };
}
